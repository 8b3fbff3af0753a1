-- Stop conditions of load sweeps (published: Micron Tables 1 and 2), each with a stable key
-- the sweep mart uses, and its threshold in the unit the warehouse compares in.
with conditions as (

    select * from {{ ref('stg_lake__published_stop_conditions') }}

),

keyed as (

    select
        {{ surrogate_key(['run_id', 'source_path', 'csv_line']) }} as stop_condition_id,
        case
            when lower(limit_name) like 'cpu utili%' then 'cpu_busy'
            when lower(limit_name) like '%log disk%write latency%' then 'log_write_latency'
            when lower(limit_name) like '%nopm%plateau%' then 'throughput_plateau'
            when lower(limit_name) like '90th percentile response time%' and lower(applies_to) like 'new order%'
                then 'response_time_new_order'
            when lower(limit_name) like '90th percentile response time%' then 'response_time_other'
            when lower(limit_name) like '90th percentile average transaction response time%' then 'response_time_per_type'
            else 'other'
        end as stop_condition,
        'published' as source_kind,
        study_id,
        limit_name,
        applies_to,
        threshold,
        threshold_unit,
        case
            when threshold_unit = 'ms' then threshold
            when threshold_unit = 's' then threshold * 1000
        end as threshold_ms,
        note,
        {{ dbt.concat(["study_id", "': '", "citation"]) }} as provenance
    from conditions

),

final as (

    select * from keyed

)

select * from final
