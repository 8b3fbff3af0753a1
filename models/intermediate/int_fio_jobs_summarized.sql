-- fio results per job entry (all directions of one job together), the unit a device
-- capability is measured in:
--   total_iops        = sum of the directions' IOPS
--   total_mib_per_s   = sum of the directions' MiB/s
--   worst_clat_p99_us = the highest p99 completion latency of the directions
--   mean_lat_us       = IO-weighted mean total latency: sum(iops x lat_mean_us) / sum(iops)
-- Interim reports (--status-interval), client aggregates, Iometer's per-manager/worker/target
-- breakdown rows (the ALL row holds their sums) and jobs with an error are left out.
with results as (

    select * from {{ ref('int_fio_results_joined') }}
    where not is_interim
      and not coalesce(is_aggregate, false)
      and not coalesce(is_breakdown, false)
      and coalesce(error_code, 0) = 0

),

final as (

    select
        fio_job_id,
        min(run_id) as run_id,
        min(source_path) as source_path,
        min(source_kind) as source_kind,
        min(host_id) as host_id,
        min(device_id) as device_id,
        min(data_device_count) as data_device_count,
        min(data_array_layout) as array_layout,
        min(profile_id) as profile_id,
        min(standard_profile_id) as standard_profile_id,
        min(access_pattern) as access_pattern,
        min(job_read_pct) as read_pct,
        min(block_size_kib) as block_size_kib,
        min(outstanding_ios) as outstanding_ios,
        min(coalesce(fio_measurement_area, measurement_area)) as measurement_area,
        min(ioengine) as ioengine,
        min(tool) as tool,
        count(*) as direction_count,
        {{ stable_sum("iops") }} as total_iops,
        {{ stable_sum("bw_mib_per_s") }} as total_mib_per_s,
        max(clat_p99_us) as worst_clat_p99_us,
        {{ safe_divide(stable_sum("iops * lat_mean_us"), stable_sum("case when lat_mean_us is not null then iops end")) }} as mean_lat_us
    from results
    group by fio_job_id

)

select * from final
