-- fio latency percentiles, one row per job entry, direction, latency kind and percentile.
with source as (

    select * from {{ source('lake', 'fio_percentiles') }}

),

renamed as (

    select
        {{ dbt.hash(dbt.concat(["source_sha256", "'|'", "cast(doc_index as " ~ dbt.type_string() ~ ")",
                                "'|'", "cast(job_index as " ~ dbt.type_string() ~ ")", "'|'", "direction"])) }}
            as fio_result_id,
        run_id,
        latency_kind,
        percentile,
        latency_us
    from source

)

select * from renamed
