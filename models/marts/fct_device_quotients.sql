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
-- A view: pairs are computed when asked, never stored. Every device measured under one condition
-- key pairs with every other, so the pairs grow with the square of the devices that share a key
-- (546,404 at 10,000 synthetic runs; storing them cost 12.7 s a build there and 535 s at 100,000,
-- docs/performance.md). Asked for a subset (one pair, one device, the TPC-C pairs /tpcc reads), DuckDB
-- pushes the filter into both sides of the self-join: 26-110 ms at 10,000 runs.
-- On Spark a table (macros/comparisons.sql device_pairs_materialization).
{{ config(materialized=device_pairs_materialization()) }}

-- Both sides read the keyed metrics directly, not through an import CTE: DuckDB materializes a
-- CTE read twice, every column of every row, before it can push a query's filter or LIMIT into
-- the pairing (a LIMIT 100,001 over the view ran for minutes at 10,000 runs that way).
with paired as (

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
    from {{ ref('int_device_metrics_keyed') }} as a
    inner join {{ ref('int_device_metrics_keyed') }} as b
        on  a.comparison_key = b.comparison_key
        and a.metric = b.metric
        and a.device_id <> b.device_id
        and a.printed_figure_id <> b.printed_figure_id
    where not a.is_range_end and not b.is_range_end

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
