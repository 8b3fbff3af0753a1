-- Published TPC-C summary figures, one number per row. Renames only (units in names); values as transcribed.
with source as (

    select * from {{ source('lake', 'published_tpcc_results') }}

),

renamed as (

    select
        study_id,
        host_id,
        device_id,
        db_config_id,
        db_server,
        warehouses,
        connections,
        buffer_pool_gb as buffer_pool_gib,
        page_size_kb as page_size_kib,
        metric,
        value as metric_value,
        unit as metric_unit,
        status as result_status,
        approx as is_approx,
        source as citation,
        note,
        run_id,
        source_path,
        csv_line
    from source

)

select * from renamed
