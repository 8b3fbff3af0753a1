-- Published SQL Server OLTP results (Micron). Renames only (units in names); values as transcribed,
-- with each figure's printed text and the unit of its last printed digit (precision).
with source as (

    select * from {{ source('lake', 'published_sqlserver_results') }}

),

renamed as (

    select
        study_id,
        host_id,
        config as storage_config,
        device_id,
        device_count,
        layout as array_layout,
        metric,
        value as metric_value,
        value_text as metric_value_text,
        value_resolution as metric_value_resolution,
        approx as is_approx,
        qualifier,
        status as result_status,
        source as citation,
        note,
        run_id,
        source_path,
        csv_line
    from source

)

select * from renamed
