-- Published studies, one row each. Renames only (units in names); values as transcribed.
with source as (

    select * from {{ source('lake', 'published_studies') }}

),

renamed as (

    select
        study_id,
        title as study_title,
        publisher,
        published as published_as_printed,
        benchmark_tool,
        doc_file as doc_files,
        notes as study_notes,
        run_id,
        source_path,
        csv_line
    from source

)

select * from renamed
