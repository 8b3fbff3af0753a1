-- iostat device rows, one per device per report. Throughputs KiB/s, times ms. Renames only.
with source as (

    select * from {{ source('lake', 'iostat_device_samples') }}

),

renamed as (

    select
        {{ surrogate_key(['source_path', 'sample_index', 'device']) }} as iostat_sample_id,
        run_id,
        source_path,
        tool_version as sysstat_version,
        sample_index,
        segment_index,
        sampled_at,
        elapsed_s,
        coalesce(is_since_boot, false) as is_since_boot,
        device as kernel_name,
        coalesce(is_group, false) as is_group,
        coalesce(is_zero_filled, false) as is_zero_filled,
        layout as iostat_layout,
        r_per_s as read_iops,
        w_per_s as write_iops,
        d_per_s as discard_iops,
        f_per_s as flush_per_s,
        tps as transfers_per_s,
        read_kib_per_s,
        write_kib_per_s,
        rrqm_per_s,
        wrqm_per_s,
        r_await_ms as read_await_ms,
        w_await_ms as write_await_ms,
        await_ms,
        aqu_sz as avg_queue_size,
        rareq_sz_kib,
        wareq_sz_kib,
        util_pct
    from source

)

select * from renamed
