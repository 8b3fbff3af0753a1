-- One row per raw file ingest saw: what read it and how it went. Renames only.
with source as (

    select * from {{ source('lake', 'ingest_files') }}

),

renamed as (

    select
        run_id,
        source_path,
        source_sha256,
        parser,
        parser_version,
        tool_version,
        size_bytes,
        format as file_format,
        detected_by,
        status as file_status,
        status_reason,
        records as record_count
    from source

)

select * from renamed
