-- Per TPC-C interval series: its steady-state samples' count, mean and spread (the measured
-- window without the ramp-up-mixed first line), and the keys it is matched to a result by.
--   mean_new_order_per_min   = avg(new_order_per_min)
--   stddev_new_order_per_min = stddev_samp(new_order_per_min)
--   mean_p95_new_order_ms    = avg(p95_new_order_ms)
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): a series is one run's
-- (a tpcc_start output, or a study's chart in one run folder; tests/dbt/
-- assert_tpcc_series_within_one_run.sql checks it), so an update aggregates only the intervals
-- of new and changed runs. Aggregating all 1.5 million intervals again was the second slowest
-- statement of an update at 10,000 runs (0.30 s of 2.4; docs/performance.md, run 24).
-- int_tpcc_series_summarized adds what depends on other runs: the result a series belongs to.
-- depends_on: {{ ref('int_run_fingerprints') }}
with intervals as (

    select * from {{ ref('int_tpcc_intervals_unioned') }}
    where is_steady_state_sample and {{ runs_to_build('run_id') }}

),

fingerprints as (

    select run_id, run_fingerprint from {{ ref('int_run_fingerprints') }}

),

aggregated as (

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

final as (

    select
        aggregated.*,
        fingerprints.run_fingerprint
    from aggregated
    left join fingerprints on aggregated.run_id = fingerprints.run_id

)

select * from final
