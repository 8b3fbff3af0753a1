-- Every run with its host key and its data / log devices (from the manifest's roles).
-- Materialized as a table: several models and tests read it, a view would recompute the chain.
{{ config(materialized='table') }}

with runs as (

    select * from {{ ref('stg_lake__runs') }}

),

devices as (

    select * from {{ ref('int_run_devices_summarized') }}

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
