-- fio json+ latency histogram bins: IOs whose latency fell in the bin starting at bin_ns.
with source as (

    select * from {{ source('lake', 'fio_histogram_bins') }}

),

renamed as (

    select
        -- Keyed by the file's path, not its content hash: two runs holding byte-identical
        -- fio output (a copied run folder) must not share ids.
        {{ surrogate_key(['source_path', 'doc_index', 'job_index', 'direction']) }} as fio_result_id,
        run_id,
        source_path,
        latency_kind,
        bin_ns,
        io_count
    from source

)

select * from renamed
