-- One row per run: a fingerprint of everything ingest read for it, so incremental models can
-- tell new and changed runs from the ones they already hold (macros/incremental_runs.sql).
--   run_fingerprint = hash of the run's files, each as 'path:sha256:parser_version', in path
--                     order: the raw files (ingest_files) and the manifest (runs). A changed
--                     byte, an added, removed or renamed file, or a new parser version changes it.
--   is_new_or_changed = the run has no fingerprint, or another one, in the previous build (the
--                     warehouse copy an incremental build starts from; true for every run in a
--                     full build): what this build brought. The incremental models select by
--                     their own ledgers instead (runs_to_build), which also know the runs a
--                     partial `dbt run -s` flagged here without building them.
-- Materialized as a table: every incremental model reads it twice per build.
{{ config(materialized='table') }}
{%- set previous = none -%}
{%- if execute and model.resource_type != 'unit_test' and not flags.FULL_REFRESH -%}
    {%- set previous = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) -%}
{%- endif %}

with raw_files as (

    select run_id, source_path, source_sha256, parser_version
    from {{ ref('stg_lake__ingest_files') }}

),

manifests as (

    select run_id, manifest_path as source_path, manifest_sha256 as source_sha256,
           manifest_parser_version as parser_version
    from {{ ref('stg_lake__runs') }}

),

inputs as (

    select * from raw_files
    union all
    select * from manifests

),

described as (

    select
        run_id,
        {{ dbt.concat(["coalesce(source_path, '~')", "':'", "coalesce(source_sha256, '~')", "':'",
                       "coalesce(parser_version, '~')"]) }} as file_text
    from inputs

),

final as (

    select
        run_id,
        {{ group_digest('file_text') }} as run_fingerprint,
        count(*) as input_file_count
    from described
    group by run_id

),

flagged as (

    select
        final.*,
    {%- if previous is not none %}
        previous.run_id is null or previous.run_fingerprint <> final.run_fingerprint as is_new_or_changed
    from final
    left join {{ previous }} as previous on previous.run_id = final.run_id
    {%- else %}
        true as is_new_or_changed
    from final
    {%- endif %}

)

select * from flagged
