-- How a comparison behaves across a sweep: for every device pair (fct_device_quotients) and every
-- condition pair of one device (fct_condition_quotients) whose quotient exists at two or more
-- levels of a sweep variable (connections, buffer pool, outstanding IOs), with every other
-- condition fixed:
--   quotient_min / _max       the smallest / largest quotient over the levels, and the level of each
--                             (ties: the lowest level)
--   quotient_mean             arithmetic mean of the per-level quotients
--   quotient_geomean          exp(mean(ln quotient)): the mean that treats A/B and B/A alike
--                             (geomean(B/A) = 1 / geomean(A/B)); null when a quotient is 0
--   *_low / *_high            the same statistics over the per-level quotient bounds
--   knee_level_a / _b         each side's knee (its own throughput curve: fct_tpcc_sweep_knees for
--                             TPC-C, int_io_sweep_steps for outstanding IOs), and the quotient there
--   stop_level_a / _b         each side's highest load within every stop condition: TPC-C sweeps
--                             the least of max_load_within_cpu_limit, _p95_limit, _log_write_limit,
--                             max_load_before_plateau (the knee), max_load_before_failure and the
--                             sweep's max_load (no condition reached) of fct_tpcc_sweep_knees; null
--                             when a condition is already broken at the sweep's lowest load. IO
--                             sweeps: the knee (throughput stops rising), else the highest level
--   stop_level                the lower of the two (null when either is null): the highest load
--                             both sides sustain within every stop condition; quotient_at_stop there
-- Repeated results at one level count once, at their mean quotient (bounds: the widest).
-- A condition pair is not summarised over its own varied condition (connections pairs over a
-- connections sweep).
--
-- Incremental by device (int_device_fingerprints, macros/incremental_keys.sql): a summary depends
-- only on the quotients of its device pair (or its one device) and on where those devices'
-- results sit in their sweeps (side_sweeps below; sweep_side_inputs() lists what it reads), so an
-- update deletes the summaries with a new, changed or vanished device on either side and
-- summarises again only those. The quotient marts it reads are brought up to date before it.
{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='fail',
    pre_hook="{{ delete_rows_of_changed_keys(ref('int_device_fingerprints'), [[['device_a_id', 'device_id']], [['device_b_id', 'device_id']]]) }}"
) }}
-- depends_on: {{ ref('int_device_fingerprints') }}

with device_pairs as (

    select * from {{ ref('fct_device_quotients') }} as quotients
    where quotients.quotient is not null
      and ({{ keys_to_build_filter(ref('int_device_fingerprints'), [['quotients.device_a_id', 'device_id']]) }}
           or {{ keys_to_build_filter(ref('int_device_fingerprints'), [['quotients.device_b_id', 'device_id']]) }})

),

condition_pairs as (

    select * from {{ ref('fct_condition_quotients') }} as quotients
    where quotients.quotient is not null
      and {{ keys_to_build_filter(ref('int_device_fingerprints'), [['quotients.device_id', 'device_id']]) }}

),

tpcc_steps as (

    select * from {{ ref('int_tpcc_sweep_steps') }}

),

tpcc_knees as (

    select * from {{ ref('fct_tpcc_sweep_knees') }}

),

io_steps as (

    select * from {{ ref('int_io_sweep_steps') }}

),

{%- set pair_columns = ['result_domain', 'metric', 'higher_is_better', 'quotient', 'quotient_low', 'quotient_high',
                        'is_quotient_range_wide', 'is_approx', 'fact_a_id', 'fact_b_id'] + comparison_conditions() %}

pairs as (

    select
        'device' as comparison_family,
        cast(null as {{ dbt.type_string() }}) as varied_condition,
        device_a_id as side_a,
        device_b_id as side_b,
        device_a_id,
        device_b_id,
        {{ pair_columns | join(',\n        ') }}
    from device_pairs

    union all

    select
        'condition' as comparison_family,
        varied_condition,
        case when co_varied_a is null then condition_a else {{ dbt.concat(['condition_a', "'; '", 'co_varied_a']) }} end as side_a,
        case when co_varied_b is null then condition_b else {{ dbt.concat(['condition_b', "'; '", 'co_varied_b']) }} end as side_b,
        device_id as device_a_id,
        device_id as device_b_id,
        {{ pair_columns | join(',\n        ') }}
    from condition_pairs

),

levels as (
    {%- for kind_name, column in sweep_variables() %}

    select
        '{{ column }}' as sweep_variable,
        {{ surrogate_key(["'" ~ column ~ "'", 'comparison_family', 'varied_condition', 'side_a', 'side_b',
                          'device_a_id', 'device_b_id', 'metric', condition_key_except([column])]) }} as sweep_summary_id,
        {{ condition_key_except([column]) }} as fixed_conditions,
        cast({{ column }} as {{ type_double() }}) as level,
        pairs.*
    from pairs
    where {{ column }} is not null
      and coalesce(varied_condition, '') <> '{{ kind_name }}'
    {%- if not loop.last %}

    union all
    {%- endif %}
    {%- endfor %}

),

-- what it reads of steps and knees is what int_device_fingerprints hashes (sweep_side_inputs())
tpcc_side_sweeps as (

    select
        tpcc_steps.tpcc_result_id as fact_id,
        tpcc_steps.sweep_variable,
        tpcc_knees.knee_load as knee_level,
        case
            when tpcc_knees.first_cpu_break_load = tpcc_knees.min_load
              or tpcc_knees.first_p95_break_load = tpcc_knees.min_load
              or tpcc_knees.first_log_write_break_load = tpcc_knees.min_load
              or tpcc_knees.first_failed_load = tpcc_knees.min_load then null
            else least(tpcc_knees.max_load_within_cpu_limit, tpcc_knees.max_load_within_p95_limit,
                       tpcc_knees.max_load_within_log_write_limit, tpcc_knees.max_load_before_plateau,
                       tpcc_knees.max_load_before_failure, tpcc_knees.max_load)
        end as stop_level
    from tpcc_steps
    inner join tpcc_knees on tpcc_steps.sweep_id = tpcc_knees.sweep_id

),

side_sweeps as (

    select fact_id, sweep_variable, knee_level, stop_level from tpcc_side_sweeps
    union all
    select
        io_steps.fact_id,
        io_steps.sweep_variable,
        io_steps.knee_load_level as knee_level,
        coalesce(io_steps.knee_load_level, io_sweep_tops.max_level) as stop_level
    from io_steps
    inner join (select sweep_id, max(load_level) as max_level from io_steps group by sweep_id) as io_sweep_tops
        on io_steps.sweep_id = io_sweep_tops.sweep_id

),

level_points as (

    select
        levels.sweep_summary_id,
        levels.level,
        {{ stable_avg("levels.quotient") }} as quotient,
        min(levels.quotient_low) as quotient_low,
        case when count(levels.quotient_high) = count(*) then max(levels.quotient_high) end as quotient_high,
        {{ any_true('levels.is_quotient_range_wide') }} as is_quotient_range_wide,
        max(side_a.knee_level) as knee_level_a,
        max(side_a.stop_level) as stop_level_a,
        max(side_b.knee_level) as knee_level_b,
        max(side_b.stop_level) as stop_level_b
    from levels
    left join side_sweeps as side_a
        on levels.fact_a_id = side_a.fact_id and levels.sweep_variable = side_a.sweep_variable
    left join side_sweeps as side_b
        on levels.fact_b_id = side_b.fact_id and levels.sweep_variable = side_b.sweep_variable
    group by levels.sweep_summary_id, levels.level

),

ranked as (

    select
        level_points.*,
        row_number() over (partition by sweep_summary_id order by quotient asc, level asc) as rank_from_min,
        row_number() over (partition by sweep_summary_id order by quotient desc, level asc) as rank_from_max
    from level_points

),

described as (

    select
        sweep_summary_id,
        min(sweep_variable) as sweep_variable,
        min(comparison_family) as comparison_family,
        min(varied_condition) as varied_condition,
        min(result_domain) as result_domain,
        min(source_kind) as source_kind,
        min(study_id) as study_id,
        min(host_id) as host_id,
        min(device_a_id) as device_a_id,
        min(device_b_id) as device_b_id,
        min(side_a) as side_a,
        min(side_b) as side_b,
        min(metric) as metric,
        max(case when higher_is_better then 1 when not higher_is_better then 0 end) as higher_is_better_flag,
        min(fixed_conditions) as fixed_conditions,
        {%- for column in comparison_conditions() if column not in ['source_kind', 'study_id', 'host_id'] %}
        min({{ column }}) as {{ column }},
        {%- endfor %}
        {{ any_true('is_approx') }} as is_approx
    from levels
    group by sweep_summary_id

),

summarized as (

    select
        sweep_summary_id,
        count(*) as level_count,
        min(level) as min_level,
        max(level) as max_level,
        min(quotient) as quotient_min,
        max(case when rank_from_min = 1 then level end) as level_at_quotient_min,
        max(quotient) as quotient_max,
        max(case when rank_from_max = 1 then level end) as level_at_quotient_max,
        {{ stable_avg("quotient") }} as quotient_mean,
        {{ stable_avg("quotient_low") }} as quotient_mean_low,
        case when count(quotient_high) = count(*) then {{ stable_avg("quotient_high") }} end as quotient_mean_high,
        case when min(quotient) > 0 then exp({{ stable_avg("ln(case when quotient > 0 then quotient end)") }}) end as quotient_geomean,
        case when min(quotient_low) > 0 then exp({{ stable_avg("ln(case when quotient_low > 0 then quotient_low end)") }})
             when min(quotient_low) = 0 then 0.0 end as quotient_geomean_low,
        case when count(quotient_high) = count(*) and min(quotient_high) > 0
             then exp({{ stable_avg("ln(case when quotient_high > 0 then quotient_high end)") }}) end as quotient_geomean_high,
        {{ any_true('is_quotient_range_wide') }} as is_any_quotient_range_wide,
        max(knee_level_a) as knee_level_a,
        max(knee_level_b) as knee_level_b,
        max(stop_level_a) as stop_level_a,
        max(stop_level_b) as stop_level_b
    from ranked
    group by sweep_summary_id
    having count(*) >= 2

),

with_stop as (

    select
        summarized.*,
        case when stop_level_a is not null and stop_level_b is not null
             then least(stop_level_a, stop_level_b) end as stop_level
    from summarized

),

final as (

    select
        described.sweep_summary_id,
        described.sweep_variable,
        described.comparison_family,
        described.varied_condition,
        described.result_domain,
        described.source_kind,
        described.study_id,
        described.host_id,
        described.device_a_id,
        described.device_b_id,
        described.side_a,
        described.side_b,
        described.metric,
        case described.higher_is_better_flag when 1 then true when 0 then false end as higher_is_better,
        described.fixed_conditions,
        {%- for column in comparison_conditions() if column not in ['source_kind', 'study_id', 'host_id'] %}
        case when described.sweep_variable = '{{ column }}' then null else described.{{ column }} end as {{ column }},
        {%- endfor %}
        with_stop.level_count,
        with_stop.min_level,
        with_stop.max_level,
        with_stop.quotient_min,
        with_stop.level_at_quotient_min,
        with_stop.quotient_max,
        with_stop.level_at_quotient_max,
        with_stop.quotient_mean,
        with_stop.quotient_mean_low,
        with_stop.quotient_mean_high,
        with_stop.quotient_geomean,
        with_stop.quotient_geomean_low,
        with_stop.quotient_geomean_high,
        with_stop.is_any_quotient_range_wide,
        with_stop.knee_level_a,
        at_knee_a.quotient as quotient_at_knee_a,
        with_stop.knee_level_b,
        at_knee_b.quotient as quotient_at_knee_b,
        with_stop.stop_level_a,
        with_stop.stop_level_b,
        with_stop.stop_level,
        at_stop.quotient as quotient_at_stop,
        described.is_approx
    from with_stop
    inner join described on with_stop.sweep_summary_id = described.sweep_summary_id
    left join level_points as at_knee_a
        on with_stop.sweep_summary_id = at_knee_a.sweep_summary_id and with_stop.knee_level_a = at_knee_a.level
    left join level_points as at_knee_b
        on with_stop.sweep_summary_id = at_knee_b.sweep_summary_id and with_stop.knee_level_b = at_knee_b.level
    left join level_points as at_stop
        on with_stop.sweep_summary_id = at_stop.sweep_summary_id and with_stop.stop_level = at_stop.level

)

select * from final
