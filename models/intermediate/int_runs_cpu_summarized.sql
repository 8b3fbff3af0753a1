-- Mean CPU utilisation of each run over its measured window ('all' rows of the preferred
-- source; percent of all logical CPUs):
--   cpu_user_sys_pct = mean(user_pct + system_pct)    (the studies' "user+sys")
--   cpu_busy_pct     = mean(busy_pct)                 (100 - idle - iowait - steal)
--   cpu_iowait_pct   = mean(iowait_pct)
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): a build averages only the
-- samples of new and changed runs (the means are ordered aggregates, macros/math.sql stable_avg:
-- as a view over every sample they cost ~11 s of each update at 10,000 runs).
-- depends_on: {{ ref('int_run_fingerprints') }}
with samples as (

    select * from {{ ref('int_cpu_samples_windowed') }}
    where is_in_window and is_preferred_source and cpu = 'all' and {{ runs_to_build('run_id') }}

),

fingerprints as (

    select * from {{ ref('int_run_fingerprints') }}

),

summarized as (

    select
        run_id,
        min(source_block) as cpu_source,
        min(window_basis) as cpu_window_basis,
        count(*) as cpu_sample_count,
        max(logical_cpus) as cpu_logical_cpus,
        {{ stable_avg("user_pct + system_pct") }} as cpu_user_sys_pct,
        {{ stable_avg("busy_pct") }} as cpu_busy_pct,
        {{ stable_avg("iowait_pct") }} as cpu_iowait_pct
    from samples
    group by run_id

),

final as (

    select
        summarized.*,
        fingerprints.run_fingerprint
    from summarized
    left join fingerprints on summarized.run_id = fingerprints.run_id

)

select * from final
