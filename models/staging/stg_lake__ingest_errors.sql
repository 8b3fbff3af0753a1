-- Everything ingest could not read (or doubted), with file and line. Renames only.
with source as (

    select * from {{ source('lake', 'ingest_errors') }}

),

renamed as (

    select
        run_id,
        source_path,
        line as line_number,
        severity,
        reason
    from source

)

select * from renamed
