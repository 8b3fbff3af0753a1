-- sysbench --histogram bins: events per latency bin (ms, sysbench's own bins). Renames only.
with source as (

    select * from {{ source('lake', 'sysbench_histogram_bins') }}

),

renamed as (

    select
        {{ surrogate_key(['source_path']) }} as sysbench_file_id,
        run_id,
        source_path,
        bin_index,
        value_ms,
        event_count
    from source

)

select * from renamed
