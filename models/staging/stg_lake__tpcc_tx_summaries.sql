-- Per-transaction-type totals: tpcc_start's Raw Results and Constraint Check, go-tpc's [Summary]
-- lines (percentiles, Takes(s), _ERR counts as failure_count), HammerDB's time profile summary
-- (calls as success_count, MIN, RATIO). Renames only.
with source as (

    select * from {{ source('lake', 'tpcc_tx_summaries') }}

),

renamed as (

    select
        {{ surrogate_key(['source_path']) }} as tpcc_file_id,
        run_id,
        source_path,
        tx_index,
        tx_type,
        success_count,
        late_count,
        retry_count,
        failure_count,
        avg_rt_ms,
        rt_limit_ms,
        sum_success_count,
        sum_late_count,
        mix_pct,
        mix_min_pct,
        mix_verdict,
        rt_passed_pct,
        rt_verdict,
        rt90_ms,
        max_rt_ms,
        elapsed_s,
        tpm_printed,
        p50_ms,
        p90_ms,
        p95_ms,
        p99_ms,
        p999_ms,
        failure_avg_rt_ms,
        failure_max_rt_ms,
        min_rt_ms,
        time_share_pct
    from source

)

select * from renamed
