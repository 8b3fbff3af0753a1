-- The device catalog: drives of the published studies merged with devices named by run manifests.
-- A manifest device whose device_id is a catalog id enriches that catalog row (run count,
-- capacity when the catalog has none); other manifest devices become rows of their own.
-- Materialized as a table: several models and tests read it, a view would recompute the chain.
{{ config(materialized='table') }}

with published as (

    select * from {{ ref('stg_lake__published_devices') }}

),

run_devices as (

    select * from {{ ref('stg_lake__run_devices') }}

),

runs as (

    select * from {{ ref('int_runs_identified') }}

),

measured_rows as (

    select
        {{ measured_device_key('run_devices.run_id', 'run_devices.device_id', 'run_devices.kernel_name', 'run_devices.device_model') }}
            as device_id,
        run_devices.run_id,
        run_devices.device_vendor,
        run_devices.device_model,
        run_devices.device_media,
        run_devices.device_interface,
        run_devices.device_capacity_gb,
        run_devices.is_rotational,
        runs.source_kind
    from run_devices
    left join runs on run_devices.run_id = runs.run_id

),

measured as (

    select
        device_id,
        case when min(case when source_kind = 'synthetic' then 1 else 0 end) = 1 then 'synthetic' else 'measured' end
            as source_kind,
        max(device_vendor) as device_vendor,
        max(device_model) as device_model,
        max(device_media) as device_media,
        max(device_interface) as device_interface,
        max(device_capacity_gb) as device_capacity_gb,
        {{ any_true('is_rotational') }} as is_rotational,
        count(distinct run_id) as measured_run_count,
        min(run_id) as first_run_id
    from measured_rows
    group by device_id

),

merged as (

    select
        coalesce(published.device_id, measured.device_id) as device_id,
        coalesce(case when published.device_id is not null then 'published' end, measured.source_kind)
            as source_kind,
        published.device_id is not null as is_in_published_catalog,
        coalesce(measured.measured_run_count, 0) as measured_run_count,
        coalesce(published.device_vendor, measured.device_vendor) as device_vendor,
        coalesce(published.device_model, measured.device_model) as device_model,
        coalesce(published.device_media, measured.device_media) as device_media,
        coalesce(published.device_interface, measured.device_interface) as device_interface,
        published.form_factor,
        coalesce(published.device_capacity_gb, measured.device_capacity_gb) as device_capacity_gb,
        published.device_rpm,
        coalesce(measured.is_rotational, published.device_rpm is not null) as is_rotational,
        published.spec_seq_read_mb_per_s,
        published.spec_seq_write_mb_per_s,
        published.spec_rand_read_iops,
        published.spec_rand_write_iops,
        published.price_usd,
        published.dwpd,
        published.endurance_years,
        published.nand,
        published.device_notes,
        -- where each figure comes from
        case
            when published.device_capacity_gb is not null then published.citation
            when measured.device_capacity_gb is not null then {{ dbt.concat(["'run manifest: '", "measured.first_run_id"]) }}
        end as capacity_source,
        case
            when coalesce(published.spec_seq_read_mb_per_s, published.spec_seq_write_mb_per_s,
                          published.spec_rand_read_iops, published.spec_rand_write_iops) is not null
            then published.citation
        end as spec_source,
        case when published.price_usd is not null then published.citation end as price_source,
        case when published.dwpd is not null then published.citation end as endurance_source,
        case
            when published.device_id is not null
            then {{ dbt.concat(["'devices.csv line '", "cast(published.csv_line as " ~ dbt.type_string() ~ ")", "': '", "published.citation"]) }}
            else {{ dbt.concat(["'run manifest: '", "measured.first_run_id"]) }}
        end as provenance
    from published
    full outer join measured on published.device_id = measured.device_id

),

final as (

    select * from merged

)

select * from final
