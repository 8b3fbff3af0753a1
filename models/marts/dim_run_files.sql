-- Every raw file behind a run: path, SHA-256, size, the parser that read it and how it went,
-- so a run page can show exactly which bytes its numbers came from.
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): one run's files alone.
-- depends_on: {{ ref('int_run_fingerprints') }}
with files as (

    select * from {{ ref('stg_lake__ingest_files') }}
    where {{ runs_to_build('run_id') }}

),

final as (

    select
        {{ dbt.hash(dbt.concat(["run_id", "'|'", "source_path"])) }} as run_file_id,
        run_id,
        source_path,
        source_sha256,
        size_bytes,
        file_format,
        detected_by,
        parser,
        parser_version,
        tool_version,
        file_status,
        status_reason,
        record_count
    from files

)

select * from final
