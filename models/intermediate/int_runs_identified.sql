-- Every run with its host key and its data / log devices (from the manifest's roles).
-- A table: several models and tests read it, a view would recompute the chain.
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): a run's row comes from its
-- own manifest and devices alone, so an update builds only new and changed runs. As a table
-- rebuilt whole it cost ~0.1 s of each update at 10,000 runs, its SQL and DuckDB's checkpoint of
-- all its rows (docs/performance.md, run 24).
-- depends_on: {{ ref('int_run_fingerprints') }}

with runs as (

    select * from {{ ref('stg_lake__runs') }}
    where {{ runs_to_build('run_id') }}

),

devices as (

    select * from {{ ref('int_run_devices_summarized') }}
    where {{ runs_to_build('run_id') }}

),

identified as (

    select
        runs.*,
        case
            when runs.run_kind = 'published' then null
            else {{ measured_host_key('runs.run_id', 'runs.host_id', 'runs.has_manifest') }}
        end as host_key,
        coalesce(runs.run_kind, case when runs.is_synthetic then 'synthetic' else 'measured' end) as source_kind,
        devices.data_device_id,
        devices.data_device,
        devices.data_device_media,
        devices.data_device_count,
        devices.data_array_layout,
        devices.log_device_id,
        devices.log_device
    from runs
    left join devices on runs.run_id = devices.run_id

),

final as (

    select * from identified

)

select * from final
