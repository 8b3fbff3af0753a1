-- fio results at the grain job entry x direction, with latency percentiles and run context.
-- Iometer results are here too (tool = 'iometer'): their whole-test ALL rows only; the
-- per-manager, worker and target rows that add up to them stay in stg_lake__fio_jobs.
-- Incremental by run, as int_fio_results_joined, whose rows of a run are all it reads of the run
-- (so the same shared rows make every run stale: runs_read_by_every_run).
{{ config(meta={'runs_read_by_every_run': ['stg_lake__published_io_profiles']}) }}
-- depends_on: {{ ref('int_run_fingerprints') }}
-- depends_on: {{ ref('stg_lake__published_io_profiles') }}
with results as (

    select * from {{ ref('int_fio_results_joined') }}
    where not coalesce(is_breakdown, false) and {{ runs_to_build('run_id') }}

),

final as (

    select
        fio_result_id,
        fio_job_id,
        run_id,
        source_kind,
        run_kind,
        is_synthetic,
        false as is_approx,
        {{ dbt.concat(["'run '", "run_id", "': '", "source_path", "' (document '",
                       "cast(doc_index as " ~ dbt.type_string() ~ ")", "', job '",
                       "cast(job_index as " ~ dbt.type_string() ~ ")", "', '", "direction", "')'"]) }}
            as provenance,
        host_id,
        device_id,
        coalesce(data_device, 'unknown device') as device,
        data_device_media as device_media,
        data_device_count as device_count,
        data_array_layout as array_layout,
        source_path,
        fio_version,
        started_at,
        job_name,
        group_id,
        hostname,
        is_aggregate,
        is_interim,
        error_code,
        rw,
        read_pct,
        direction,
        access_pattern,
        job_read_pct,
        block_size,
        block_size_bytes,
        block_size_kib,
        profile_id,
        standard_profile_id,
        ioengine,
        iodepth,
        numjobs,
        group_reporting,
        outstanding_ios,
        is_direct_io,
        coalesce(fio_measurement_area, measurement_area) as measurement_area,
        ramp_time_s,
        runtime_ms,
        io_bytes,
        iops,
        bw_mib_per_s,
        lat_mean_us,
        clat_mean_us,
        clat_max_us,
        clat_p50_us,
        clat_p90_us,
        clat_p95_us,
        clat_p99_us,
        clat_p99_9_us,
        clat_p99_99_us,
        usr_cpu_pct,
        sys_cpu_pct,
        tool,
        random_pct,
        bw_bytes_per_s,
        lat_max_us,
        cpu_util_pct
    from results

)

select * from final
