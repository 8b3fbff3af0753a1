-- Per TPC-C interval series: mean throughput and its coefficient of variation over the
-- measured window, the steady-state flag, and the fct_tpcc_results row the series belongs to.
--   cv_pct          = stddev_samp(new_order_per_min) / avg(new_order_per_min) x 100
--   is_steady_state = cv_pct <= var('steady_state_max_cv_pct')
-- A published series links to the one result with the same study, host, device, config and
-- connections (no link when several match); a measured series to the result of its file.
-- Only steady-state samples count (measured window, without the ramp-up-mixed first line).
-- Materialized as a table: several models and tests read it, a view would recompute the chain.
{{ config(materialized='table') }}

with intervals as (

    select * from {{ ref('int_tpcc_intervals_unioned') }}
    where is_steady_state_sample

),

results as (

    select * from {{ ref('int_tpcc_results_unioned') }}

),

series as (

    select
        tpcc_series_id,
        min(source_kind) as source_kind,
        min(run_id) as run_id,
        min(source_path) as source_path,
        min(study_id) as study_id,
        min(host_id) as host_id,
        min(device_id) as device_id,
        min(db_config_id) as db_config_id,
        min(connections) as connections,
        count(new_order_per_min) as throughput_interval_count,
        {{ stable_avg("new_order_per_min") }} as mean_new_order_per_min,
        {{ stable_stddev_samp("new_order_per_min") }} as stddev_new_order_per_min,
        {{ stable_avg("p95_new_order_ms") }} as mean_p95_new_order_ms
    from intervals
    group by tpcc_series_id

),

-- Two equi-joins, not one join on source_kind with an `or` of the two key sets: DuckDB cannot
-- hash an `or`, so that join compared every measured series with every measured result (the
-- square of the runs: 2.0 s at 10,000 runs, 141.7 s at 100,000).
published_matches as (

    select
        series.tpcc_series_id,
        results.tpcc_result_id
    from series
    inner join results
        on  results.source_kind = series.source_kind
        and results.study_id = series.study_id
        and results.host_id = series.host_id
        and results.device_id = series.device_id
        and results.db_config_id = series.db_config_id
        and results.connections = series.connections
    where series.source_kind = 'published'

),

measured_matches as (

    select
        series.tpcc_series_id,
        results.tpcc_result_id
    from series
    inner join results
        on  results.source_kind = series.source_kind
        and results.run_id = series.run_id
        and results.source_path = series.source_path
    where series.source_kind <> 'published'

),

matches as (

    select * from published_matches
    union all
    select * from measured_matches

),

unique_matches as (

    select tpcc_series_id, min(tpcc_result_id) as tpcc_result_id
    from matches
    group by tpcc_series_id
    having count(*) = 1

),

final as (

    select
        series.*,
        {{ safe_divide('stddev_new_order_per_min', 'mean_new_order_per_min') }} * 100 as cv_pct,
        {{ var('steady_state_max_cv_pct') }} as steady_state_max_cv_pct,
        case
            when series.throughput_interval_count < 2 then null
            else {{ safe_divide('stddev_new_order_per_min', 'mean_new_order_per_min') }} * 100
                 <= {{ var('steady_state_max_cv_pct') }}
        end as is_steady_state,
        unique_matches.tpcc_result_id
    from series
    left join unique_matches on series.tpcc_series_id = unique_matches.tpcc_series_id

)

select * from final
