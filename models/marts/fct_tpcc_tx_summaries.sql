-- tpcc_start per-transaction-type totals, one row per output file and transaction type.
--   finished_count = success_count + late_count
--   late_pct       = late_count / finished_count x 100
--   mix_share_pct  = finished_count / finished count of all types in the file x 100
--                    (recomputed; tpcc_start prints its own mix_pct in the Constraint Check)
--   per_min        = finished_count x 60 / measured seconds
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): a file's rows come from that
-- file and its run alone.
-- depends_on: {{ ref('int_run_fingerprints') }}
with summaries as (

    select * from {{ ref('stg_lake__tpcc_tx_summaries') }}
    where {{ runs_to_build('run_id') }}

),

tpcc_runs as (

    select * from {{ ref('stg_lake__tpcc_runs') }}
    where {{ runs_to_build('run_id') }}

),

runs as (

    select * from {{ ref('int_runs_identified') }}
    where {{ runs_to_build('run_id') }}

),

totals as (

    select tpcc_file_id, sum(coalesce(success_count, 0) + coalesce(late_count, 0)) as file_finished_count
    from summaries
    group by tpcc_file_id

),

final as (

    select
        {{ surrogate_key(['summaries.tpcc_file_id', 'summaries.tx_type']) }} as tpcc_tx_summary_id,
        summaries.tpcc_file_id,
        summaries.run_id,
        runs.source_kind,
        false as is_approx,
        {{ dbt.concat(["'run '", "summaries.run_id", "': '", "summaries.source_path", "' ('", "summaries.tx_type", "')'"]) }}
            as provenance,
        runs.host_key as host_id,
        runs.data_device_id as device_id,
        coalesce(tpcc_runs.connections, runs.tpcc_connections) as connections,
        coalesce(tpcc_runs.warehouses, runs.tpcc_warehouses) as warehouses,
        summaries.source_path,
        summaries.tx_index,
        summaries.tx_type,
        summaries.success_count,
        summaries.late_count,
        summaries.retry_count,
        summaries.failure_count,
        coalesce(summaries.success_count, 0) + coalesce(summaries.late_count, 0) as finished_count,
        {{ safe_divide('summaries.late_count * 100.0', 'coalesce(summaries.success_count, 0) + coalesce(summaries.late_count, 0)') }}
            as late_pct,
        {{ safe_divide('(coalesce(summaries.success_count, 0) + coalesce(summaries.late_count, 0)) * 100.0', 'totals.file_finished_count') }}
            as mix_share_pct,
        {{ safe_divide('(coalesce(summaries.success_count, 0) + coalesce(summaries.late_count, 0)) * 60.0', 'tpcc_runs.measured_s') }}
            as per_min,
        summaries.avg_rt_ms,
        summaries.rt_limit_ms,
        summaries.mix_pct as printed_mix_pct,
        summaries.mix_min_pct,
        summaries.mix_verdict,
        summaries.rt_passed_pct,
        summaries.rt_verdict,
        summaries.rt90_ms,
        summaries.max_rt_ms
    from summaries
    left join totals on summaries.tpcc_file_id = totals.tpcc_file_id
    left join tpcc_runs on summaries.tpcc_file_id = tpcc_runs.tpcc_file_id
    left join runs on summaries.run_id = runs.run_id

)

select * from final
