-- iostat device samples, one row per device (or -g group) per report, with the device's role in
-- the run (data / log from the manifest), its catalog id and the run's measured window.
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): a build reads only new
-- and changed runs.
-- depends_on: {{ ref('int_run_fingerprints') }}

with samples as (

    select * from {{ ref('int_iostat_samples_windowed') }}
    where {{ runs_to_build('run_id') }}

),

runs as (

    select * from {{ ref('int_runs_identified') }}

),

final as (

    select
        samples.iostat_sample_id,
        samples.run_id,
        runs.source_kind,
        false as is_approx,
        {{ dbt.concat(["'run '", "samples.run_id", "': '", "samples.source_path", "' (report '",
                       "cast(samples.sample_index as " ~ dbt.type_string() ~ ")", "', '", "samples.kernel_name", "')'"]) }}
            as provenance,
        runs.host_key as host_id,
        samples.device_id,
        samples.device_role,
        samples.kernel_name,
        samples.is_group,
        samples.source_path,
        samples.sysstat_version,
        samples.iostat_layout,
        samples.sample_index,
        samples.segment_index,
        samples.sampled_at,
        samples.elapsed_s,
        samples.is_since_boot,
        samples.is_in_window,
        samples.window_basis,
        samples.read_iops,
        samples.write_iops,
        samples.discard_iops,
        samples.flush_per_s,
        samples.transfers_per_s,
        samples.read_kib_per_s,
        samples.write_kib_per_s,
        samples.read_kib_per_s / 1024.0 as read_mib_per_s,
        samples.write_kib_per_s / 1024.0 as write_mib_per_s,
        samples.rrqm_per_s,
        samples.wrqm_per_s,
        samples.read_await_ms,
        samples.write_await_ms,
        samples.await_ms,
        samples.avg_queue_size,
        samples.rareq_sz_kib,
        samples.wareq_sz_kib,
        samples.util_pct,
        samples.run_fingerprint
    from samples
    left join runs on samples.run_id = runs.run_id

)

select * from final
