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
--
-- A view over two parts. The condition pairs are stored (int_condition_sweeps_summarized: one
-- device's pairs). The device pairs are summarised when asked, like the pairs they summarise
-- (fct_device_quotients): every device sharing a condition key pairs with every other, so they
-- grow with the square of those devices (at 100,000 synthetic runs the stored summaries spilled
-- 25 GB of temporary files before the build was stopped: docs/performance.md, run 16). Asked for
-- some devices (device_a_id / device_b_id), DuckDB pushes the filter into the pairing
-- (macros/sweep_summaries.sql says how the SQL keeps that possible). On Spark a table
-- (macros/comparisons.sql device_pairs_materialization).
{{ config(materialized=device_pairs_materialization()) }}

with device_pairs as (

    select * from {{ ref('fct_device_quotients') }} as quotients
    where quotients.quotient is not null

),

condition_summaries as (

    select * from {{ ref('int_condition_sweeps_summarized') }}

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

pairs as (

    select
        'device' as comparison_family,
        cast(null as {{ dbt.type_string() }}) as varied_condition,
        device_a_id as side_a,
        device_b_id as side_b,
        device_a_id,
        device_b_id,
        {{ sweep_pair_columns() | join(',\n        ') }}
    from device_pairs

),

{{ sweep_summary_ctes() }},

final as (

    select * from summaries
    union all
    select * from condition_summaries

)

select * from final
