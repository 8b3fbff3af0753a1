-- Servers of the published studies. Renames only (units in names); values as transcribed.
with source as (

    select * from {{ source('lake', 'published_hosts') }}

),

renamed as (

    select
        host_id,
        study_id,
        role as host_role,
        vendor_model as host_vendor_model,
        cpu_model as host_cpu_model,
        cpu_ghz as host_nominal_ghz,
        sockets as host_sockets,
        cores as host_physical_cores,
        threads as host_logical_cpus,
        memory_gb as host_ram_gb,
        os as host_os,
        notes as host_notes,
        run_id,
        source_path,
        csv_line
    from source

)

select * from renamed
