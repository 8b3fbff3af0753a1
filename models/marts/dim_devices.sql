-- The device catalog: published drives (with spec-sheet figures, prices, endurance) and devices
-- of measured runs, one row per device id. Derived:
--   usd_per_gb                   = price_usd / capacity_gb
--   usd_per_spec_rand_read_iops  = price_usd / spec random-read IOPS      ($/IOPS, spec sheet)
--   spec_rand_read_iops_per_gb   = spec random-read IOPS / capacity_gb    (IOPS/GB, spec sheet)
--   endurance_tb_written         = dwpd x capacity_gb x 365 x endurance_years / 1000   (TBW)
with devices as (

    select * from {{ ref('int_devices_unioned') }}

),

final as (

    select
        device_id,
        source_kind,
        is_in_published_catalog,
        measured_run_count,
        device_vendor,
        device_model,
        device_media,
        device_interface,
        form_factor,
        device_capacity_gb,
        device_rpm,
        is_rotational,
        spec_seq_read_mb_per_s,
        spec_seq_write_mb_per_s,
        spec_rand_read_iops,
        spec_rand_write_iops,
        price_usd,
        dwpd,
        endurance_years,
        nand,
        {{ safe_divide('price_usd', 'device_capacity_gb') }} as usd_per_gb,
        {{ safe_divide('price_usd', 'spec_rand_read_iops') }} as usd_per_spec_rand_read_iops,
        {{ safe_divide('spec_rand_read_iops', 'device_capacity_gb') }} as spec_rand_read_iops_per_gb,
        dwpd * device_capacity_gb * 365 * endurance_years / 1000.0 as endurance_tb_written,
        capacity_source,
        spec_source,
        price_source,
        endurance_source,
        device_notes,
        provenance
    from devices

)

select * from final
