-- fio latency percentiles, one row per job entry, direction, latency kind and percentile.
with source as (

    select * from {{ source('lake', 'fio_percentiles') }}

),

renamed as (

    select
        -- Keyed by the file's path, not its content hash: two runs holding byte-identical
        -- fio output (a copied run folder) must not share ids.
        {{ surrogate_key(['source_path', 'doc_index', 'job_index', 'direction']) }} as fio_result_id,
        run_id,
        latency_kind,
        percentile,
        latency_us
    from source

)

select * from renamed
