-- Published IO results (Fujitsu), one number per row. Renames only (units in names); values as transcribed,
-- with each figure's printed text and the unit of its last printed digit (precision).
with source as (

    select * from {{ source('lake', 'published_io_results') }}

),

renamed as (

    select
        study_id,
        host_id,
        device_id,
        array_layout,
        profile_id,
        outstanding_ios,
        measurement_area,
        cpu_setting,
        metric,
        value as metric_value,
        value_text as metric_value_text,
        value_resolution as metric_value_resolution,
        approx as is_approx,
        qualifier,
        source as citation,
        note,
        run_id,
        source_path,
        csv_line
    from source

)

select * from renamed
