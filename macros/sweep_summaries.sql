{#- The sweep summaries of fct_sweep_quotient_summaries (formulas in its header), for one family of
    pairs: the CTEs after a CTE `pairs` (comparison_family, varied_condition, side_a, side_b,
    device_a_id, device_b_id, then the pair columns) and the CTEs tpcc_steps, tpcc_knees and
    io_steps; the last one is `summaries`. Two models call it: fct_sweep_quotient_summaries for
    the device pairs (a view: computed when asked) and int_condition_sweeps_summarized for the
    condition pairs of one device (stored).

    Written so that a query's filter on device_a_id / device_b_id reaches the pairs: every CTE
    is read once (DuckDB materializes a CTE read twice, every row, before it can push a filter
    into it: docs/performance.md run 16), the sweep variables come from a cross join rather than
    a union of three reads of the pairs, the quotient at each knee and stop comes from a window
    rather than joins back to the levels (an extreme's level too), and the two devices are grouping and partition keys
    everywhere (a filter passes an aggregate or a window only on those). -#}
{#- The columns of a quotient row that a summary reads, after its family's own (above). -#}
{% macro sweep_pair_columns() -%}
    {{ return(['result_domain', 'metric', 'higher_is_better', 'quotient', 'quotient_low', 'quotient_high',
               'is_quotient_range_wide', 'is_approx', 'fact_a_id', 'fact_b_id'] + comparison_conditions()) }}
{%- endmacro %}


{% macro sweep_summary_ctes() %}
{%- set described_conditions = [] %}
{%- for column in comparison_conditions() if column not in ['source_kind', 'study_id', 'host_id'] %}
    {%- do described_conditions.append(column) %}
{%- endfor %}
{%- set summary = 'partition by device_a_id, device_b_id, sweep_summary_id' %}
{#- what makes a summary: its id hashes these (in this order: the ids of earlier builds) -#}
{%- set summary_columns = ['sweep_variable', 'comparison_family', 'varied_condition', 'side_a', 'side_b',
                           'device_a_id', 'device_b_id', 'metric', 'fixed_conditions'] %}

sweep_variables as (
    {%- for kind_name, column in sweep_variables() %}

    select '{{ column }}' as sweep_variable, '{{ kind_name }}' as sweep_kind
    {%- if not loop.last %}

    union all
    {%- endif %}
    {%- endfor %}

),

levels as (

    select
        sweep_variables.sweep_variable,
        case sweep_variables.sweep_variable
        {%- for kind_name, column in sweep_variables() %}
            when '{{ column }}' then {{ condition_key_except([column]) }}
        {%- endfor %}
        end as fixed_conditions,
        case sweep_variables.sweep_variable
        {%- for kind_name, column in sweep_variables() %}
            when '{{ column }}' then cast({{ column }} as {{ type_double() }})
        {%- endfor %}
        end as level,
        pairs.*
    from pairs
    cross join sweep_variables
    where coalesce(pairs.varied_condition, '') <> sweep_variables.sweep_kind
      and (
        {%- for kind_name, column in sweep_variables() %}
        (sweep_variables.sweep_variable = '{{ column }}' and pairs.{{ column }} is not null){{ ' or' if not loop.last }}
        {%- endfor %}
      )

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

io_sweep_tops as (

    select sweep_id, max(load_level) as max_level from io_steps group by sweep_id

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
    inner join io_sweep_tops on io_steps.sweep_id = io_sweep_tops.sweep_id

),

-- one row per summary and level: repeated results at a level count once, at their mean quotient.
-- A summary is its group columns (hashed here, once per level, not once per pair)
level_points as (

    select
        levels.device_a_id,
        levels.device_b_id,
        {{ surrogate_key(prefixed(summary_columns, 'levels.')) }} as sweep_summary_id,
        levels.level,
        {%- for column in summary_columns if column not in ['device_a_id', 'device_b_id'] %}
        levels.{{ column }},
        {%- endfor %}
        min(levels.result_domain) as result_domain,
        min(levels.source_kind) as source_kind,
        min(levels.study_id) as study_id,
        min(levels.host_id) as host_id,
        max(case when levels.higher_is_better then 1 when not levels.higher_is_better then 0 end) as higher_is_better_flag,
        {%- for column in described_conditions %}
        min(levels.{{ column }}) as {{ column }},
        {%- endfor %}
        {{ any_true('levels.is_approx') }} as is_approx,
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
    group by
        {%- for column in summary_columns %}
        levels.{{ column }},
        {%- endfor %}
        levels.level

),

-- the summary's extremes, knees and stop beside every level (windows without an order: one
-- pass, no sort)
ranked as (

    select
        level_points.*,
        min(quotient) over ({{ summary }}) as summary_quotient_min,
        max(quotient) over ({{ summary }}) as summary_quotient_max,
        max(knee_level_a) over ({{ summary }}) as summary_knee_level_a,
        max(knee_level_b) over ({{ summary }}) as summary_knee_level_b,
        case when max(stop_level_a) over ({{ summary }}) is not null and max(stop_level_b) over ({{ summary }}) is not null
             then least(max(stop_level_a) over ({{ summary }}), max(stop_level_b) over ({{ summary }})) end as summary_stop_level
    from level_points

),

summarized as (

    select
        device_a_id,
        device_b_id,
        sweep_summary_id,
        min(sweep_variable) as sweep_variable,
        min(comparison_family) as comparison_family,
        min(varied_condition) as varied_condition,
        min(result_domain) as result_domain,
        min(source_kind) as source_kind,
        min(study_id) as study_id,
        min(host_id) as host_id,
        min(side_a) as side_a,
        min(side_b) as side_b,
        min(metric) as metric,
        max(higher_is_better_flag) as higher_is_better_flag,
        min(fixed_conditions) as fixed_conditions,
        {%- for column in described_conditions %}
        min({{ column }}) as {{ column }},
        {%- endfor %}
        count(*) as level_count,
        min(level) as min_level,
        max(level) as max_level,
        min(quotient) as quotient_min,
        min(case when quotient = summary_quotient_min then level end) as level_at_quotient_min,
        max(quotient) as quotient_max,
        min(case when quotient = summary_quotient_max then level end) as level_at_quotient_max,
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
        max(case when level = summary_knee_level_a then quotient end) as quotient_at_knee_a,
        max(knee_level_b) as knee_level_b,
        max(case when level = summary_knee_level_b then quotient end) as quotient_at_knee_b,
        max(stop_level_a) as stop_level_a,
        max(stop_level_b) as stop_level_b,
        max(summary_stop_level) as stop_level,
        max(case when level = summary_stop_level then quotient end) as quotient_at_stop,
        {{ any_true('is_approx') }} as is_approx
    from ranked
    group by device_a_id, device_b_id, sweep_summary_id
    having count(*) >= 2

),

summaries as (

    select
        sweep_summary_id,
        sweep_variable,
        comparison_family,
        varied_condition,
        result_domain,
        source_kind,
        study_id,
        host_id,
        device_a_id,
        device_b_id,
        side_a,
        side_b,
        metric,
        case higher_is_better_flag when 1 then true when 0 then false end as higher_is_better,
        fixed_conditions,
        {%- for column in described_conditions %}
        case when sweep_variable = '{{ column }}' then null else {{ column }} end as {{ column }},
        {%- endfor %}
        level_count,
        min_level,
        max_level,
        quotient_min,
        level_at_quotient_min,
        quotient_max,
        level_at_quotient_max,
        quotient_mean,
        quotient_mean_low,
        quotient_mean_high,
        quotient_geomean,
        quotient_geomean_low,
        quotient_geomean_high,
        is_any_quotient_range_wide,
        knee_level_a,
        quotient_at_knee_a,
        knee_level_b,
        quotient_at_knee_b,
        stop_level_a,
        stop_level_b,
        stop_level,
        quotient_at_stop,
        is_approx
    from summarized

)
{%- endmacro %}
