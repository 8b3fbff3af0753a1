-- CPU samples (mpstat, sar -u, collectl, iostat avg-cpu), one row per CPU (or 'all') per
-- interval, with the run's measured window and the run's preferred CPU source flagged.
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): a build reads only new
-- and changed runs.
-- depends_on: {{ ref('int_run_fingerprints') }}

with samples as (

    select * from {{ ref('int_cpu_samples_windowed') }}
    where {{ runs_to_build('run_id') }}

),

runs as (

    select * from {{ ref('int_runs_identified') }}

),

final as (

    select
        samples.cpu_sample_id,
        samples.run_id,
        runs.source_kind,
        false as is_approx,
        {{ dbt.concat(["'run '", "samples.run_id", "': '", "samples.source_path", "' ('", "samples.source_block",
                       "' sample '", "cast(samples.sample_index as " ~ dbt.type_string() ~ ")", "')'"]) }} as provenance,
        runs.host_key as host_id,
        samples.source_path,
        samples.sysstat_version,
        samples.source_block,
        samples.sample_index,
        samples.sampled_at,
        samples.elapsed_s,
        samples.interval_s,
        samples.is_since_boot,
        samples.is_in_window,
        samples.is_preferred_source,
        samples.window_basis,
        samples.cpu,
        samples.hostname,
        samples.logical_cpus,
        samples.user_pct,
        samples.nice_pct,
        samples.system_pct,
        samples.user_pct + samples.system_pct as user_sys_pct,
        samples.iowait_pct,
        samples.irq_pct,
        samples.softirq_pct,
        samples.steal_pct,
        samples.idle_pct,
        samples.busy_pct,
        samples.run_fingerprint
    from samples
    left join runs on samples.run_id = runs.run_id

)

select * from final
