-- Per TPC-C interval series: mean throughput and its coefficient of variation over the
-- measured window, the steady-state flag, and the fct_tpcc_results row the series belongs to.
--   cv_pct          = stddev_samp(new_order_per_min) / avg(new_order_per_min) x 100
--   is_steady_state = cv_pct <= var('steady_state_max_cv_pct')
-- A published series links to the one result with the same study, host, device, config and
-- connections (no link when several match); a measured series to the result of its file.
-- The series' statistics come from int_tpcc_series_aggregated (steady-state samples only:
-- measured window, without the ramp-up-mixed first line), which an update builds for new and
-- changed runs alone; the link to a result is made again for all series on every build.
-- Materialized as a table: several models and tests read it, a view would recompute the chain.
{{ config(materialized='table') }}

with series as (

    select
        tpcc_series_id, source_kind, run_id, source_path, study_id, host_id, device_id, db_config_id,
        connections, throughput_interval_count, mean_new_order_per_min, stddev_new_order_per_min,
        mean_p95_new_order_ms
    from {{ ref('int_tpcc_series_aggregated') }}

),

results as (

    select * from {{ ref('int_tpcc_results_unioned') }}

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
