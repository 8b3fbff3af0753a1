-- One row per run naming its data device(s) and log device(s), so facts can show what was tested.
with devices as (

    select * from {{ ref('stg_lake__run_devices') }}

),

labelled as (

    select
        run_id,
        device_role,
        coalesce(device_id, device_model, kernel_name) as device_label,
        device_media
    from devices

),

summarized as (

    select
        run_id,
        min(case when device_role in ('data', 'data+log') then device_label end) as data_device,
        min(case when device_role in ('data', 'data+log') then device_media end) as data_device_media,
        min(case when device_role in ('log', 'data+log') then device_label end) as log_device,
        sum(case when device_role in ('data', 'data+log') then 1 else 0 end) as data_device_entries
    from labelled
    group by run_id

),

final as (

    select * from summarized

)

select * from final
