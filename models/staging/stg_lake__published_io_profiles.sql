-- Load profiles of the published IO tests. Renames only (units in names); values as transcribed.
with source as (

    select * from {{ source('lake', 'published_io_profiles') }}

),

renamed as (

    select
        profile_id,
        name as profile_name,
        access as access_pattern,
        read_pct,
        write_pct,
        block_kb as block_size_kib,
        application,
        source as citation,
        note,
        run_id,
        source_path,
        csv_line
    from source

)

select * from renamed
