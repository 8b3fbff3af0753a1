-- The steps of every TPC-C sweep: results that share all conditions but one load variable.
--   connections sweeps:     everything equal but connections (a load sweep)
--   buffer_pool_gib sweeps: everything equal but the buffer pool (the Percona memory sweep)
-- Steps without throughput (failed tests) stay in the sweep but not on the throughput curve.
-- For each step on the curve: gain_to_next_pct = (next step's tpm - this tpm) / this tpm x 100,
-- and is_knee marks the first step whose next step gains less than var('knee_min_gain_pct')
-- (macros/knees.sql, shared with the IO sweeps).
-- Incremental by device (int_tpcc_device_fingerprints, macros/incremental_keys.sql): the sweep
-- key holds the device, so a sweep is made from one device's results alone; an update makes
-- again only the sweeps of new, changed and vanished devices (and of the results without a
-- device). Rebuilt whole it cost 0.07 s and 0.06 s of commit per update at 10,000 runs.
{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='fail',
    pre_hook="{{ delete_rows_of_changed_keys(ref('int_tpcc_device_fingerprints'), [[['device_id', 'device_id']]]) }}"
) }}
-- depends_on: {{ ref('int_tpcc_device_fingerprints') }}

with results as (

    select * from {{ ref('int_tpcc_results_enriched') }} as enriched
    where {{ keys_to_build_filter(ref('int_tpcc_device_fingerprints'), [['enriched.device_id', 'device_id']]) }}

),

{%- set common = ['source_kind', 'study_id', 'host_id', 'device_id', 'db_config_id', 'db_server', 'kit',
                  'warehouses', 'page_size_kib', 'data_device_count', 'array_layout'] %}

steps as (

    select
        'connections' as sweep_variable,
        {{ surrogate_key(["'connections'"] + common + ['buffer_pool_gib']) }} as sweep_id,
        cast(connections as {{ type_double() }}) as load_level,
        results.*
    from results
    where connections is not null

    union all

    select
        'buffer_pool_gib' as sweep_variable,
        {{ surrogate_key(["'buffer_pool_gib'"] + common + ['connections']) }} as sweep_id,
        cast(buffer_pool_gib as {{ type_double() }}) as load_level,
        results.*
    from results
    where buffer_pool_gib is not null

),

sweep_sizes as (

    select sweep_id, count(distinct load_level) as step_count
    from steps
    group by sweep_id

),

curve_points as (

    -- repeated runs at one load level count once, at their mean throughput
    select sweep_id, load_level, {{ stable_avg("new_order_tpm") }} as throughput
    from steps
    where new_order_tpm is not null
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
        steps.*,
        sweep_sizes.step_count,
        gains.throughput as curve_new_order_tpm,
        gains.next_load_level,
        gains.next_throughput as next_new_order_tpm,
        gains.gain_to_next_pct,
        coalesce(steps.load_level = first_knee.knee_load_level, false) as is_knee
    from steps
    inner join sweep_sizes on steps.sweep_id = sweep_sizes.sweep_id
    left join gains
        on steps.sweep_id = gains.sweep_id and steps.load_level = gains.load_level
    left join first_knee on steps.sweep_id = first_knee.sweep_id
    where sweep_sizes.step_count >= 2

)

select * from final
