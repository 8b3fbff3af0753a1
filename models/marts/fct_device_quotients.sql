-- Quotients and percentage differences between two devices measured under the same conditions.
-- Two numbers are divided only when their comparison_key (see int_device_metrics_keyed) and
-- metric are equal and the devices differ; both orders are listed (A / B and B / A). Never
-- divided: one printed figure by itself (a figure the paper stated jointly for two capacities:
-- same printed_figure_id, a tautological 1.0) and the ends of a printed range.
--
--   quotient       = value_a / value_b
--   pct_diff       = (value_a - value_b) / value_b x 100
--   quotient_low   = value_a_low / value_b_high, quotient_high = value_a_high / value_b_low
--                    (interval arithmetic on the printed precision; high null = unbounded)
--   pct_diff_low / _high = (quotient_low / _high - 1) x 100
--   is_quotient_range_wide: the quotient's low..high spans more than var('wide_range_min_pct') %
--
-- Incremental by device (int_device_fingerprints, macros/incremental_keys.sql): a pair depends
-- only on its two devices' results, so an update deletes the pairs with a new, changed or
-- vanished device on either side and pairs again only those with one on a side.
{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='fail',
    pre_hook="{{ delete_rows_of_changed_keys(ref('int_device_fingerprints'), [[['device_a_id', 'device_id']], [['device_b_id', 'device_id']]]) }}"
) }}
-- depends_on: {{ ref('int_device_fingerprints') }}

with metrics as (

    select
        keyed.*,
        {{ keys_to_build_filter(ref('int_device_fingerprints'), [['keyed.device_id', 'device_id']]) }} as is_device_to_build
    from {{ ref('int_device_metrics_keyed') }} as keyed

),

paired as (

    select
        a.result_domain,
        a.source_kind,
        a.comparison_key,
        a.study_id,
        a.host_id,
        a.profile_id,
        a.load_level,
        a.db_config_id,
        a.connections,
        a.buffer_pool_gib,
        a.page_size_kib,
        a.outstanding_ios,
        a.array_layout,
        {%- for column in comparison_conditions() if column not in ['source_kind', 'study_id', 'host_id', 'db_config_id',
                                                                      'connections', 'buffer_pool_gib', 'page_size_kib',
                                                                      'outstanding_ios', 'array_layout', 'profile_id'] %}
        a.{{ column }},
        {%- endfor %}
        a.metric,
        a.higher_is_better,
        a.device_id as device_a_id,
        b.device_id as device_b_id,
        a.metric_value as value_a,
        b.metric_value as value_b,
        a.metric_value_low as value_a_low,
        a.metric_value_high as value_a_high,
        b.metric_value_low as value_b_low,
        b.metric_value_high as value_b_high,
        a.fact_id as fact_a_id,
        b.fact_id as fact_b_id,
        (a.is_approx or b.is_approx) as is_approx,
        {{ dbt.concat(["'A: '", "a.provenance", "' | B: '", "b.provenance"]) }} as provenance
    from metrics as a
    inner join metrics as b
        on  a.comparison_key = b.comparison_key
        and a.metric = b.metric
        and a.device_id <> b.device_id
        and a.printed_figure_id <> b.printed_figure_id
    where not a.is_range_end and not b.is_range_end
      and (a.is_device_to_build or b.is_device_to_build)

),

derived as (

    select
        {{ surrogate_key(['comparison_key', 'metric', 'fact_a_id', 'fact_b_id']) }} as device_quotient_id,
        paired.*,
        {{ safe_divide('value_a', 'value_b') }} as quotient,
        {{ pct_diff('value_a', 'value_b') }} as pct_diff,
        {{ ratio_low('value_a_low', 'value_b_high', 'value_b') }} as quotient_low,
        {{ ratio_high('value_a_high', 'value_b_low') }} as quotient_high,
        case
            when higher_is_better is null or value_a = value_b then null
            when higher_is_better then value_a > value_b
            else value_a < value_b
        end as is_a_better
    from paired

),

bounded as (

    select
        derived.*,
        (quotient_low - 1) * 100 as pct_diff_low,
        (quotient_high - 1) * 100 as pct_diff_high,
        {{ range_width_pct('quotient_low', 'quotient_high', 'quotient') }} as quotient_range_pct,
        {{ is_range_wide('quotient_low', 'quotient_high', 'quotient') }} as is_quotient_range_wide
    from derived

),

final as (

    select * from bounded

)

select * from final
