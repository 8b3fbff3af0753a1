-- Mean CPU utilisation of each run over its measured window ('all' rows of the preferred
-- source; percent of all logical CPUs):
--   cpu_user_sys_pct = mean(user_pct + system_pct)    (the studies' "user+sys")
--   cpu_busy_pct     = mean(busy_pct)                 (100 - idle - iowait - steal)
--   cpu_iowait_pct   = mean(iowait_pct)
with samples as (

    select * from {{ ref('int_cpu_samples_windowed') }}
    where is_in_window and is_preferred_source and cpu = 'all'

),

final as (

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

)

select * from final
