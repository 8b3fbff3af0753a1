-- Per tpcc_start output: totals from the per-type Raw Results and the measured intervals.
--   tpmc_from_counts     = New-Order (success + late) x 60 / measured seconds  (TpmC recomputed
--                          here, independently of the parser's own tpmc_recomputed). Measured
--                          seconds: go-tpc's New-Order Takes(s) (0.1 s) when printed, else measured_s
--   total_txn_per_min    = transactions of all five types (success + late) x 60 / measured_s,
--                          only when all five types are present
--   interval p95 / max   = mean of the interval New-Order p95 (as the Samsung chart summaries
--                          are), and the largest interval maximum, over measured intervals
--                          without ramp-up samples
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): a build reads only new
-- and changed runs.
-- depends_on: {{ ref('int_run_fingerprints') }}

with runs as (

    select * from {{ ref('stg_lake__tpcc_runs') }}
    where {{ runs_to_build('run_id') }}

),

summaries as (

    select * from {{ ref('stg_lake__tpcc_tx_summaries') }}
    where {{ runs_to_build('run_id') }}

),

fingerprints as (

    select * from {{ ref('int_run_fingerprints') }}

),

intervals as (

    select * from {{ ref('stg_lake__tpcc_intervals') }}
    where not is_rampup and not is_rampup_mixed and {{ runs_to_build('run_id') }}

),

tx_totals as (

    select
        tpcc_file_id,
        count(distinct tx_type) as tx_type_count,
        sum(case when tx_type = 'New-Order' then coalesce(success_count, 0) + coalesce(late_count, 0) end)
            as new_order_txn_count,
        sum(coalesce(success_count, 0) + coalesce(late_count, 0)) as all_txn_count,
        max(case when tx_type = 'New-Order' then elapsed_s end) as new_order_elapsed_s
    from summaries
    group by tpcc_file_id

),

interval_stats as (

    select
        tpcc_file_id,
        count(*) as measured_interval_count,
        {{ stable_avg("new_order_p95_ms") }} as mean_interval_p95_new_order_ms,
        max(new_order_max_ms) as max_interval_new_order_ms
    from intervals
    group by tpcc_file_id

),

final as (

    select
        runs.*,
        tx_totals.tx_type_count,
        tx_totals.new_order_txn_count,
        tx_totals.all_txn_count,
        -- HammerDB's time profile counts calls over the whole run, ramp-up included: no NOPM from them
        case when coalesce(runs.kit, '') <> 'hammerdb' then
        {{ safe_divide('tx_totals.new_order_txn_count * 60.0', 'coalesce(tx_totals.new_order_elapsed_s, runs.measured_s)') }}
        end as tpmc_from_counts,
        case when tx_totals.tx_type_count = 5 and coalesce(runs.kit, '') <> 'hammerdb'
             then {{ safe_divide('tx_totals.all_txn_count * 60.0', 'coalesce(tx_totals.new_order_elapsed_s, runs.measured_s)') }}
        end as total_txn_per_min,
        interval_stats.measured_interval_count,
        interval_stats.mean_interval_p95_new_order_ms,
        interval_stats.max_interval_new_order_ms,
        fingerprints.run_fingerprint
    from runs
    left join fingerprints on runs.run_id = fingerprints.run_id
    left join tx_totals on runs.tpcc_file_id = tx_totals.tpcc_file_id
    left join interval_stats on runs.tpcc_file_id = interval_stats.tpcc_file_id

)

select * from final
