-- Drives of the published studies with spec-sheet figures. Renames only (units in names); values as transcribed.
with source as (

    select * from {{ source('lake', 'published_devices') }}

),

renamed as (

    select
        device_id,
        vendor as device_vendor,
        model as device_model,
        media as device_media,
        interface as device_interface,
        form_factor,
        capacity_gb as device_capacity_gb,
        rpm as device_rpm,
        spec_seq_read_mb_s as spec_seq_read_mb_per_s,
        spec_seq_write_mb_s as spec_seq_write_mb_per_s,
        spec_rand_read_iops,
        spec_rand_write_iops,
        price_usd,
        dwpd,
        endurance_years,
        nand,
        source as citation,
        notes as device_notes,
        run_id,
        source_path,
        csv_line
    from source

)

select * from renamed
