-- Published TPC-C summary figures, one number per row. Renames only (units in names); values as transcribed,
-- with each figure's printed text and the unit of its last printed digit (precision).
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
        value_text as metric_value_text,
        value_resolution as metric_value_resolution,
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
