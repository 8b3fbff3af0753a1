-- tpcc_start interval lines, one row each (wide: five transaction types). Renames only.
with source as (

    select * from {{ source('lake', 'tpcc_intervals') }}

),

renamed as (

    select
        {{ surrogate_key(['source_path']) }} as tpcc_file_id,
        run_id,
        source_path,
        interval_index,
        elapsed_s,
        interval_s,
        coalesce(is_rampup_mixed, false) as is_rampup_mixed,
        coalesce(is_rampup, false) as is_rampup,
        new_order_count,
        payment_count,
        order_status_count,
        delivery_count,
        stock_level_count,
        new_order_p95_ms,
        new_order_p99_ms,
        new_order_p999_ms,
        new_order_rt90_ms,
        new_order_avg_ms,
        new_order_max_ms
    from source

)

select * from renamed
