-- One row per run folder: the manifest's facts (null where the manifest is silent or absent).
with source as (

    select * from {{ source('lake', 'runs') }}

),

renamed as (

    select
        run_id,
        collection,
        source_path as manifest_path,
        source_sha256 as manifest_sha256,
        parser_version as manifest_parser_version,
        run_kind,
        has_manifest,
        tools,
        started_at,
        status as run_status,
        description,
        tags,
        study_id,
        host_id,
        host_vendor_model,
        host_cpu_model,
        host_sockets,
        host_physical_cores,
        host_logical_cpus,
        host_nominal_ghz,
        host_measured_ghz,
        host_ram_gib,
        host_os,
        host_kernel,
        db_server,
        db_version,
        db_config_id,
        tpcc_warehouses,
        tpcc_connections,
        tpcc_buffer_pool_gib,
        tpcc_page_size_kib,
        fio_measurement_area,
        coalesce(synthetic, false) as is_synthetic
    from source

)

select * from renamed
