-- fio job entries x direction, as ingested; renames and casts only.
with source as (

    select * from {{ source('lake', 'fio_jobs') }}

),

renamed as (

    select
        -- Keyed by the file's path, not its content hash: two runs holding byte-identical
        -- fio output (a copied run folder) must not share ids.
        {{ surrogate_key(['source_path', 'doc_index', 'job_index', 'direction']) }} as fio_result_id,
        {{ surrogate_key(['source_path', 'doc_index', 'job_index']) }} as fio_job_id,
        run_id,
        collection,
        source_path,
        source_sha256,
        parser,
        parser_version,
        tool_version as fio_version,
        doc_index,
        job_index,
        direction,
        job_name,
        group_id,
        hostname,
        port as client_port,
        is_aggregate,
        coalesce(is_interim, false) as is_interim,
        error_code,
        started_at,
        rw,
        read_pct,
        block_size,
        block_size_bytes,
        ioengine,
        iodepth,
        numjobs,
        group_reporting,
        outstanding_ios,
        direct as is_direct_io,
        size as measurement_area,
        filename as target_filename,
        time_based as is_time_based,
        runtime_option_s,
        ramp_time_s,
        elapsed_s,
        runtime_ms,
        io_bytes,
        bw_bytes_per_s,
        bw_mib_per_s,
        iops,
        total_ios,
        slat_mean_us,
        clat_min_us,
        clat_max_us,
        clat_mean_us,
        clat_stdev_us,
        lat_min_us,
        lat_max_us,
        lat_mean_us,
        lat_stdev_us,
        usr_cpu_pct,
        sys_cpu_pct,
        coalesce(tool, 'fio') as tool,
        random_pct,
        result_level,
        target_name,
        coalesce(is_breakdown, false) as is_breakdown,
        cpu_util_pct
    from source

)

select * from renamed
