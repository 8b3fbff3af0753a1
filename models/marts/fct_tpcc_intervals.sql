-- TPC-C interval time series (measured report intervals; published chart data), with the
-- series' steady-state statistics:
--   deviation_from_series_mean_pct = (new_order_per_min - series mean) / series mean x 100
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): an update writes the new and
-- changed runs' intervals, not all of them again (1.6 M rows at 10,000 runs, ~5 s). A measured
-- series depends on its own run alone; a published series links to a result of its study that
-- another run folder may hold, so the few published series are selected on every build.
-- depends_on: {{ ref('int_run_fingerprints') }}
with intervals as (

    select * from {{ ref('int_tpcc_intervals_unioned') }}
    where {{ runs_to_build('run_id') }}

    union all

    -- the published series, on every build: a second pass rather than an OR of the two, so that
    -- each filter reaches the scan (the OR made DuckDB read every column of 1.6 M rows to keep a
    -- few thousand: 0.07 s of an update at 10,000 runs)
    select * from {{ ref('int_tpcc_intervals_unioned') }}
    where source_kind = 'published' and ({{ runs_to_build('run_id') }}) is not true

),

series as (

    select * from {{ ref('int_tpcc_series_summarized') }}

),

final as (

    select
        intervals.tpcc_interval_id,
        intervals.tpcc_series_id,
        series.tpcc_result_id,
        intervals.source_kind,
        intervals.is_approx,
        intervals.provenance,
        intervals.run_id,
        intervals.source_path,
        intervals.study_id,
        intervals.host_id,
        intervals.device_id,
        intervals.db_config_id,
        intervals.connections,
        intervals.series_label,
        intervals.elapsed_s,
        intervals.interval_s,
        intervals.is_in_measured_window,
        intervals.is_steady_state_sample,
        intervals.new_order_per_min,
        intervals.p90_new_order_ms,
        intervals.p95_new_order_ms,
        intervals.p99_new_order_ms,
        intervals.max_new_order_ms,
        intervals.total_txn_per_min,
        series.mean_new_order_per_min as series_mean_new_order_per_min,
        series.cv_pct as series_cv_pct,
        series.is_steady_state as is_series_steady_state,
        {{ pct_diff('intervals.new_order_per_min', 'series.mean_new_order_per_min') }} as deviation_from_series_mean_pct,
        intervals.run_fingerprint
    from intervals
    left join series on intervals.tpcc_series_id = series.tpcc_series_id

)

select * from final
