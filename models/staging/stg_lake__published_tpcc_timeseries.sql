-- Published TPC-C time series points. Renames only (units in names); values as transcribed,
-- with each figure's printed text and the unit of its last printed digit (precision).
with source as (

    select * from {{ source('lake', 'published_tpcc_timeseries') }}

),

renamed as (

    select
        study_id,
        host_id,
        device_id,
        db_config_id,
        connections,
        t_s as elapsed_s,
        metric,
        value as metric_value,
        value_text as metric_value_text,
        value_resolution as metric_value_resolution,
        series_label,
        source as citation,
        run_id,
        source_path,
        csv_line
    from source

)

select * from renamed
