-- One row per run naming its data device(s) and log device(s), so facts can show what was tested.
-- data_device_id / log_device_id are dim_devices keys (manifest device_id, else run_id/kernel name).
with devices as (

    select * from {{ ref('stg_lake__run_devices') }}

),

labelled as (

    select
        run_id,
        device_role,
        coalesce(device_id, device_model, kernel_name) as device_label,
        {{ measured_device_key('run_id', 'device_id', 'kernel_name', 'device_model') }} as device_key,
        device_media,
        device_count,
        array_layout
    from devices

),

summarized as (

    select
        run_id,
        min(case when device_role in ('data', 'data+log') then device_label end) as data_device,
        min(case when device_role in ('data', 'data+log') then device_key end) as data_device_id,
        min(case when device_role in ('data', 'data+log') then device_media end) as data_device_media,
        min(case when device_role in ('data', 'data+log') then device_count end) as data_device_count,
        min(case when device_role in ('data', 'data+log') then array_layout end) as data_array_layout,
        min(case when device_role in ('log', 'data+log') then device_label end) as log_device,
        min(case when device_role in ('log', 'data+log') then device_key end) as log_device_id,
        sum(case when device_role in ('data', 'data+log') then 1 else 0 end) as data_device_entries
    from labelled
    group by run_id

),

final as (

    select * from summarized

)

select * from final
