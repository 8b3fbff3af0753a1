-- Stop conditions of a published load sweep. Renames only (units in names); values as transcribed.
with source as (

    select * from {{ source('lake', 'published_stop_conditions') }}

),

renamed as (

    select
        study_id,
        limit_name,
        threshold,
        unit as threshold_unit,
        applies_to,
        source as citation,
        note,
        run_id,
        source_path,
        csv_line
    from source

)

select * from renamed
