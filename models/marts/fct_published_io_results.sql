-- Published IO results (Fujitsu P3700 report): one row per printed figure, with its load
-- profile. MB/s in the report is base 2 (MiB/s). Derived, for figures of a fixed block size:
--   mib_per_s_from_iops = iops x block_size_kib / 1024
--   iops_from_mib_per_s = mib_per_s x 1024 / block_size_kib
with results as (

    select * from {{ ref('stg_lake__published_io_results') }}

),

profiles as (

    select * from {{ ref('stg_lake__published_io_profiles') }}

),

joined as (

    select
        {{ surrogate_key(['results.run_id', 'results.source_path', 'results.csv_line']) }} as published_io_result_id,
        'published' as source_kind,
        results.is_approx,
        {{ dbt.concat(["results.study_id", "': '", "results.citation"]) }} as provenance,
        results.run_id,
        results.study_id,
        results.host_id,
        results.device_id,
        results.array_layout,
        results.profile_id,
        profiles.access_pattern,
        profiles.read_pct,
        profiles.block_size_kib,
        results.outstanding_ios,
        results.outstanding_ios is null as is_over_all_loads,
        results.measurement_area,
        results.cpu_setting,
        results.metric,
        results.metric_value,
        results.qualifier,
        case when results.metric = 'iops' then results.metric_value end as iops,
        case when results.metric = 'mb_per_s' then results.metric_value end as mib_per_s,
        case when results.metric = 'min_read_latency_ms' then results.metric_value end as min_read_latency_ms,
        case when results.metric = 'min_write_latency_ms' then results.metric_value end as min_write_latency_ms,
        results.note,
        results.source_path,
        results.csv_line
    from results
    left join profiles on results.profile_id = profiles.profile_id

),

derived as (

    select
        joined.*,
        iops * block_size_kib / 1024.0 as mib_per_s_from_iops,
        {{ safe_divide('mib_per_s * 1024.0', 'block_size_kib') }} as iops_from_mib_per_s
    from joined

),

final as (

    select * from derived

)

select * from final
