-- Scaling: what N drives (or N processes on one drive) deliver over fewer, per layout, from the
-- layout and processes condition quotients (fct_condition_quotients: one device model, every
-- other condition equal). One row per pair, oriented larger over smaller setup:
--   scale_ratio            = (drives_a x processes_a) / (drives_b x processes_b)   (> 1)
--   scaling_factor         = value_a / value_b (the quotient), with its bounds
--   efficiency_per_unit    = scaling_factor / scale_ratio: 1 = perfectly linear, 0.5 = each added
--                            drive (process) adds nothing; low / high = factor low / high / ratio
-- scaling_kind: 'drives' (layout pairs: independent drives, RAID 0, RAID 1, mirrored spaces ...)
-- or 'processes' (N processes on N partitions of one drive). Only throughput metrics (IOPS, MiB/s,
-- New-Order/min). Processes of an unstated count (TPC-C rows) count as 1.
with pairs as (

    select * from {{ ref('fct_condition_quotients') }}
    where varied_condition in ('layout', 'processes')
      and metric in ('iops', 'mib_per_s', 'new_order_tpm')

),

facts as (

    select distinct fact_id, device_count, processes_per_device, array_layout
    from {{ ref('int_device_metrics_keyed') }}

),

sided as (

    select
        pairs.*,
        side_a.device_count as device_count_a,
        side_b.device_count as device_count_b,
        coalesce(side_a.processes_per_device, 1) as processes_per_device_a,
        coalesce(side_b.processes_per_device, 1) as processes_per_device_b,
        side_a.array_layout as array_layout_a,
        side_b.array_layout as array_layout_b
    from pairs
    inner join facts as side_a on pairs.fact_a_id = side_a.fact_id
    inner join facts as side_b on pairs.fact_b_id = side_b.fact_id

),

ratios as (

    select
        sided.*,
        case when varied_condition = 'processes' then 'processes' else 'drives' end as scaling_kind,
        {{ layout_kind('array_layout_a') }} as layout_kind_a,
        {{ layout_kind('array_layout_b') }} as layout_kind_b,
        {{ safe_divide('device_count_a * processes_per_device_a', 'device_count_b * processes_per_device_b') }} as scale_ratio
    from sided

),

final as (

    select
        condition_quotient_id as scaling_factor_id,
        result_domain,
        source_kind,
        scaling_kind,
        study_id,
        host_id,
        device_id,
        metric,
        profile_id,
        outstanding_ios,
        measurement_area,
        array_layout_a,
        layout_kind_a,
        device_count_a,
        processes_per_device_a,
        array_layout_b,
        layout_kind_b,
        device_count_b,
        processes_per_device_b,
        (device_count_b = 1 and processes_per_device_b = 1) as is_vs_single,
        scale_ratio,
        value_a,
        value_a_low,
        value_a_high,
        value_b,
        value_b_low,
        value_b_high,
        quotient as scaling_factor,
        quotient_low as scaling_factor_low,
        quotient_high as scaling_factor_high,
        quotient / scale_ratio as efficiency_per_unit,
        quotient_low / scale_ratio as efficiency_per_unit_low,
        quotient_high / scale_ratio as efficiency_per_unit_high,
        quotient / scale_ratio * 100 as efficiency_pct,
        is_quotient_range_wide as is_range_wide,
        co_varied_a,
        co_varied_b,
        shared_conditions,
        fact_a_id,
        fact_b_id,
        is_approx,
        provenance
    from ratios
    where scale_ratio > 1

)

select * from final
