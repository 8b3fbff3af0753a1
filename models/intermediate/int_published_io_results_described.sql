-- Published IO results (Fujitsu P3700 report) described: one row per printed figure, with its load
-- profile, printed-precision bounds, layout and joint statements (fct_published_io_results shows it;
-- int_device_metrics_keyed pairs it). MB/s in the report is base 2 (MiB/s). Derived, for figures of
-- a fixed block size:
--   mib_per_s_from_iops = iops x block_size_kib / 1024
--   iops_from_mib_per_s = mib_per_s x 1024 / block_size_kib
-- Precision (macros/precision.sql): metric_value_low / _high from how the figure was printed
-- (plain: half a unit of its last digit; hedged "about": of its last non-zero digit, no coarser
-- than the second significant digit; "over" / "exceeded": a lower bound, high unbounded = null).
-- Layout: device_count and processes_per_device from the layout's name (raid0_x4 = 4 drives,
-- partitions_x4 = 4 processes on one drive; macros/layouts.sql).
-- One printed figure stated for several devices or layouts ("about 10000 in all three cases",
-- "1470 MB/s for the two smaller capacities") is one fact: the rows share printed_figure_id and
-- are is_jointly_stated; quotients never divide a figure by itself (int_device_metrics_keyed).
-- Materialized as a table: two models read it.
{{ config(materialized='table') }}

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
        {{ layout_device_count('results.array_layout') }} as device_count,
        {{ layout_processes_per_device('results.array_layout') }} as processes_per_device,
        {{ layout_kind('results.array_layout') }} as layout_kind,
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
        results.metric_value_text,
        results.metric_value_resolution,
        {{ printed_low('results.metric_value', 'results.metric_value_resolution', 'results.qualifier') }} as metric_value_low,
        {{ printed_high('results.metric_value', 'results.metric_value_resolution', 'results.qualifier') }} as metric_value_high,
        {{ precision_basis('results.metric_value', 'results.metric_value_resolution', 'results.qualifier') }} as precision_basis,
        results.qualifier,
        lower(coalesce(results.qualifier, '')) like '%range%end%' as is_range_end,
        {{ surrogate_key(['results.study_id', 'results.citation', 'results.metric', 'results.profile_id',
                          'results.outstanding_ios', 'results.qualifier', 'results.metric_value_text']) }} as printed_figure_id,
        results.citation,
        {{ citation_section('results.citation') }} as source_section,
        results.note,
        results.source_path,
        results.csv_line
    from results
    left join profiles on results.profile_id = profiles.profile_id

),

joint_counts as (

    select printed_figure_id, count(*) as joint_figure_count
    from joined
    group by printed_figure_id

),

derived as (

    select
        joined.*,
        joint_counts.joint_figure_count,
        joint_counts.joint_figure_count > 1 as is_jointly_stated,
        (joined.device_count = 1 and joined.processes_per_device = 1) as is_single_device,
        case when joined.metric = 'iops' then joined.metric_value end as iops,
        case when joined.metric = 'iops' then joined.metric_value_low end as iops_low,
        case when joined.metric = 'iops' then joined.metric_value_high end as iops_high,
        case when joined.metric = 'mb_per_s' then joined.metric_value end as mib_per_s,
        case when joined.metric = 'mb_per_s' then joined.metric_value_low end as mib_per_s_low,
        case when joined.metric = 'mb_per_s' then joined.metric_value_high end as mib_per_s_high,
        case when joined.metric = 'min_read_latency_ms' then joined.metric_value end as min_read_latency_ms,
        case when joined.metric = 'min_write_latency_ms' then joined.metric_value end as min_write_latency_ms
    from joined
    inner join joint_counts on joined.printed_figure_id = joint_counts.printed_figure_id

),

converted as (

    select
        derived.*,
        iops * block_size_kib / 1024.0 as mib_per_s_from_iops,
        iops_low * block_size_kib / 1024.0 as mib_per_s_from_iops_low,
        iops_high * block_size_kib / 1024.0 as mib_per_s_from_iops_high,
        {{ safe_divide('mib_per_s * 1024.0', 'block_size_kib') }} as iops_from_mib_per_s,
        {{ safe_divide('mib_per_s_low * 1024.0', 'block_size_kib') }} as iops_from_mib_per_s_low,
        {{ safe_divide('mib_per_s_high * 1024.0', 'block_size_kib') }} as iops_from_mib_per_s_high
    from derived

),

final as (

    select * from converted

)

select * from final
