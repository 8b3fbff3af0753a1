-- sysbench [ Ns ] interval reports: OLTP tps / qps / r-w-o per second, fileio MiB/s and fsyncs/s,
-- the interval's latency percentile. Renames only.
with source as (

    select * from {{ source('lake', 'sysbench_intervals') }}

),

renamed as (

    select
        {{ surrogate_key(['source_path']) }} as sysbench_file_id,
        run_id,
        source_path,
        interval_index,
        elapsed_s,
        threads,
        tps,
        qps,
        reads_per_s,
        writes_per_s,
        other_per_s,
        errors_per_s,
        reconnects_per_s,
        read_mib_per_s,
        write_mib_per_s,
        fsyncs_per_s,
        lat_pct,
        lat_pct_ms
    from source

)

select * from renamed
