-- CPU utilisation rows (mpstat, sar -u, collectl, iostat avg-cpu). Percent of that CPU's time.
with source as (

    select * from {{ source('lake', 'cpu_samples') }}

),

renamed as (

    select
        {{ surrogate_key(['source_path', 'source_block', 'sample_index', 'cpu']) }} as cpu_sample_id,
        run_id,
        source_path,
        tool_version as sysstat_version,
        sample_index,
        sampled_at,
        elapsed_s,
        interval_s,
        coalesce(is_since_boot, false) as is_since_boot,
        source_block,
        cpu,
        hostname,
        logical_cpus,
        user_pct,
        nice_pct,
        system_pct,
        iowait_pct,
        irq_pct,
        softirq_pct,
        steal_pct,
        idle_pct,
        busy_pct
    from source

)

select * from renamed
