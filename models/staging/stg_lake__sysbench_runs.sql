-- sysbench run outputs, one row per file: threads, OLTP totals and rates or fileio rates,
-- latency (ms), thread fairness, status. Renames only.
with source as (

    select * from {{ source('lake', 'sysbench_runs') }}

),

renamed as (

    select
        {{ surrogate_key(['source_path']) }} as sysbench_file_id,
        run_id,
        source_path,
        tool_version as sysbench_version,
        test as sysbench_test,
        status as sysbench_status,
        threads,
        report_interval_s,
        interval_count,
        transactions,
        tps,
        queries,
        qps,
        reads as read_queries,
        writes as write_queries,
        other as other_queries,
        queries_total,
        ignored_errors,
        reconnects,
        file_reads_per_s,
        file_writes_per_s,
        file_fsyncs_per_s,
        read_mib_per_s,
        write_mib_per_s,
        total_time_s,
        events,
        lat_min_ms,
        lat_avg_ms,
        lat_max_ms,
        lat_pct,
        lat_pct_ms,
        lat_sum_ms,
        fairness_events_avg,
        fairness_events_stddev,
        fairness_exec_time_s_avg,
        fairness_exec_time_s_stddev,
        histogram_bin_count
    from source

)

select * from renamed
