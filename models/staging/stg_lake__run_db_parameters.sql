-- Database parameters a run manifest records, one row per run and parameter. Renames only.
with source as (

    select * from {{ source('lake', 'run_db_parameters') }}

),

renamed as (

    select
        run_id,
        parameter,
        value as parameter_value,
        source_path
    from source

)

select * from renamed
