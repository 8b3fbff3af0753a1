-- Database settings of the published studies, one row per configuration and parameter. Renames only (units in names); values as transcribed.
with source as (

    select * from {{ source('lake', 'published_db_configs') }}

),

renamed as (

    select
        study_id,
        config_id as db_config_id,
        server as db_server,
        server_version as db_version,
        parameter,
        value as parameter_value,
        inherited as is_inherited,
        inherited_from,
        section as config_section,
        source as citation,
        note,
        run_id,
        source_path,
        csv_line
    from source

)

select * from renamed
