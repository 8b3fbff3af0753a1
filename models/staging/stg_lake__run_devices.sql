-- Devices under test per run, with their role (data / log) from the manifest.
with source as (

    select * from {{ source('lake', 'run_devices') }}

),

renamed as (

    select
        run_id,
        device_id,
        kernel_name,
        role as device_role,
        vendor as device_vendor,
        model as device_model,
        media as device_media,
        interface as device_interface,
        capacity_gb as device_capacity_gb,
        rotational as is_rotational,
        count as device_count,
        layout as array_layout
    from source

)

select * from renamed
