-- fio results at the grain job entry x direction, with latency percentiles and run context.
with jobs as (

    select * from {{ ref('stg_lake__fio_jobs') }}

),

percentiles as (

    select * from {{ ref('int_fio_percentiles_pivoted') }}

),

runs as (

    select * from {{ ref('stg_lake__runs') }}

),

devices as (

    select * from {{ ref('int_run_devices_summarized') }}

),

joined as (

    select
        jobs.fio_result_id,
        jobs.run_id,
        runs.run_kind,
        runs.is_synthetic,
        runs.host_id,
        coalesce(devices.data_device, 'unknown device') as device,
        devices.data_device_media as device_media,
        jobs.source_path,
        jobs.fio_version,
        jobs.started_at,
        jobs.job_name,
        jobs.group_id,
        jobs.hostname,
        jobs.is_aggregate,
        jobs.error_code,
        jobs.rw,
        jobs.read_pct,
        jobs.direction,
        jobs.block_size,
        jobs.block_size_bytes,
        jobs.ioengine,
        jobs.iodepth,
        jobs.numjobs,
        jobs.group_reporting,
        jobs.outstanding_ios,
        jobs.is_direct_io,
        coalesce(runs.fio_measurement_area, jobs.measurement_area) as measurement_area,
        jobs.runtime_ms,
        jobs.io_bytes,
        jobs.iops,
        jobs.bw_mib_per_s,
        jobs.lat_mean_us,
        jobs.clat_mean_us,
        jobs.clat_max_us,
        percentiles.clat_p50_us,
        percentiles.clat_p95_us,
        percentiles.clat_p99_us,
        percentiles.clat_p99_9_us,
        jobs.usr_cpu_pct,
        jobs.sys_cpu_pct
    from jobs
    left join percentiles on jobs.fio_result_id = percentiles.fio_result_id
    left join runs on jobs.run_id = runs.run_id
    left join devices on jobs.run_id = devices.run_id

),

final as (

    select * from joined

)

select * from final
