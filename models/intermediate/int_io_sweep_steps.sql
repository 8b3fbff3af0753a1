-- The steps of every IO sweep over outstanding IOs: results of one device that share every
-- comparison condition but the outstanding IOs (key_except_outstanding_ios of
-- int_device_metrics_keyed), measured (fio) or published (Fujitsu prose at stated loads).
-- A result's throughput is its IOPS, or its MiB/s where only that was printed; one curve per
-- device, key and throughput metric. Repeated runs at one level count once, at their mean.
-- The knee (macros/knees.sql, as for the TPC-C sweeps): the first step whose next step gains less
-- than var('knee_min_gain_pct') %. An IO sweep has no other stop condition here, so the knee is
-- also its stop level ("throughput no longer rises").
-- Incremental by device (int_device_input_fingerprints, macros/incremental_keys.sql): a sweep is
-- one device's results (the sweep key holds the device), made from its rows of
-- int_device_metrics_keyed, which are made from what that fingerprint hashes; an update makes
-- again only the sweeps of new, changed and vanished devices. As a view it ranked all 143,000
-- metric rows at 10,000 runs on every update, for the two models that read it (0.05 s each).
{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='fail',
    pre_hook="{{ delete_rows_of_changed_keys(ref('int_device_input_fingerprints'), [[['device_id', 'device_id']]]) }}"
) }}
-- depends_on: {{ ref('int_device_input_fingerprints') }}
with metrics as (

    select * from {{ ref('int_device_metrics_keyed') }} as keyed
    where result_domain = 'io'
      and outstanding_ios is not null
      and not is_range_end
      and metric in ('iops', 'mib_per_s')
      and {{ keys_to_build_filter(ref('int_device_input_fingerprints'), [['keyed.device_id', 'device_id']]) }}

),

facts as (

    select
        fact_id,
        min(device_id) as device_id,
        min(key_except_outstanding_ios) as key_except_outstanding_ios,
        min(outstanding_ios) as outstanding_ios,
        max(case when metric = 'iops' then metric_value end) as iops,
        max(case when metric = 'mib_per_s' then metric_value end) as mib_per_s
    from metrics
    group by fact_id

),

steps as (

    select
        'outstanding_ios' as sweep_variable,
        {{ surrogate_key(["'outstanding_ios'", 'device_id',
                          "case when iops is not null then 'iops' else 'mib_per_s' end",
                          'key_except_outstanding_ios']) }} as sweep_id,
        fact_id,
        device_id,
        case when iops is not null then 'iops' else 'mib_per_s' end as throughput_metric,
        cast(outstanding_ios as {{ type_double() }}) as load_level,
        coalesce(iops, mib_per_s) as throughput
    from facts

),

sweep_sizes as (

    select sweep_id, count(distinct load_level) as step_count
    from steps
    group by sweep_id

),

curve_points as (

    select sweep_id, load_level, {{ stable_avg("throughput") }} as throughput
    from steps
    group by sweep_id, load_level

),

gains as (

    {{ curve_gains('curve_points') }}

),

first_knee as (

    {{ first_knees('gains') }}

),

final as (

    select
        steps.sweep_variable,
        steps.sweep_id,
        steps.fact_id,
        steps.device_id,
        steps.throughput_metric,
        steps.load_level,
        steps.throughput,
        sweep_sizes.step_count,
        gains.throughput as curve_throughput,
        gains.next_load_level,
        gains.gain_to_next_pct,
        first_knee.knee_load_level,
        coalesce(steps.load_level = first_knee.knee_load_level, false) as is_knee
    from steps
    inner join sweep_sizes on steps.sweep_id = sweep_sizes.sweep_id
    inner join gains on steps.sweep_id = gains.sweep_id and steps.load_level = gains.load_level
    left join first_knee on steps.sweep_id = first_knee.sweep_id
    where sweep_sizes.step_count >= 2

)

select * from final
