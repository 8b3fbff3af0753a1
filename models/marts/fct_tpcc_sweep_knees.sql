-- One row per TPC-C sweep (results equal in every condition but connections, or but the buffer
-- pool): where throughput stops rising (the knee) and the highest load before each stop
-- condition.
--   knee: the first step whose next step adds less than var('knee_min_gain_pct') % New-Order/min
--         (also the highest load before the 'throughput plateau' stop condition)
--   max_load_within_<limit>: the highest load below the first step that breaks the limit
--         (among steps where the metric is known); limits from dim_stop_conditions:
--         CPU busy (user+sys) <= the CPU limit; p95 New-Order response time <= the 90th
--         percentile New-Order limit (p95 >= p90, so this is the stricter reading);
--         log-device write await <= the log write latency limit (measured runs only)
--   first_failed_load: the lowest load whose test the source reports as failed
with steps as (

    select * from {{ ref('int_tpcc_sweep_steps') }}

),

limits as (

    select * from {{ ref('dim_stop_conditions') }}

),

limit_values as (

    select
        max(case when stop_condition = 'cpu_busy' then threshold end) as cpu_limit_pct,
        max(case when stop_condition = 'response_time_new_order' then threshold_ms end) as p95_limit_ms,
        max(case when stop_condition = 'log_write_latency' then threshold_ms end) as log_write_limit_ms
    from limits

),

flagged as (

    select
        steps.*,
        limit_values.cpu_limit_pct,
        limit_values.p95_limit_ms,
        limit_values.log_write_limit_ms,
        case when steps.cpu_user_sys_pct > limit_values.cpu_limit_pct then 1 else 0 end as breaks_cpu,
        case when steps.p95_new_order_ms > limit_values.p95_limit_ms then 1 else 0 end as breaks_p95,
        case when steps.log_write_await_ms > limit_values.log_write_limit_ms then 1 else 0 end as breaks_log_write,
        case when steps.result_status = 'failed' then 1 else 0 end as is_failed
    from steps
    cross join limit_values

),

first_breaks as (

    select
        sweep_id,
        min(case when breaks_cpu = 1 then load_level end) as first_cpu_break_load,
        min(case when breaks_p95 = 1 then load_level end) as first_p95_break_load,
        min(case when breaks_log_write = 1 then load_level end) as first_log_write_break_load,
        min(case when is_failed = 1 then load_level end) as first_failed_load
    from flagged
    group by sweep_id

),

summarized as (

    select
        flagged.sweep_id,
        min(flagged.sweep_variable) as sweep_variable,
        min(flagged.source_kind) as source_kind,
        min(flagged.study_id) as study_id,
        min(flagged.host_id) as host_id,
        min(flagged.device_id) as device_id,
        min(flagged.db_config_id) as db_config_id,
        min(flagged.db_server) as db_server,
        min(flagged.kit) as kit,
        min(flagged.warehouses) as warehouses,
        min(flagged.page_size_kib) as page_size_kib,
        min(flagged.data_device_count) as data_device_count,
        min(flagged.array_layout) as array_layout,
        case when min(flagged.sweep_variable) = 'buffer_pool_gib' then min(flagged.connections) end as connections,
        case when min(flagged.sweep_variable) = 'connections' then min(flagged.buffer_pool_gib) end as buffer_pool_gib,
        min(flagged.step_count) as step_count,
        min(flagged.load_level) as min_load,
        max(flagged.load_level) as max_load,
        max(flagged.new_order_tpm) as max_new_order_tpm,
        max(case when flagged.is_knee then flagged.load_level end) as knee_load,
        max(case when flagged.is_knee then flagged.curve_new_order_tpm end) as knee_new_order_tpm,
        max(case when flagged.is_knee then flagged.gain_to_next_pct end) as knee_gain_to_next_pct,
        max(flagged.cpu_limit_pct) as cpu_limit_pct,
        max(case when flagged.cpu_user_sys_pct is not null
                  and (first_breaks.first_cpu_break_load is null or flagged.load_level < first_breaks.first_cpu_break_load)
                 then flagged.load_level end) as max_load_within_cpu_limit,
        max(flagged.p95_limit_ms) as p95_limit_ms,
        max(case when flagged.p95_new_order_ms is not null
                  and (first_breaks.first_p95_break_load is null or flagged.load_level < first_breaks.first_p95_break_load)
                 then flagged.load_level end) as max_load_within_p95_limit,
        max(flagged.log_write_limit_ms) as log_write_limit_ms,
        max(case when flagged.log_write_await_ms is not null
                  and (first_breaks.first_log_write_break_load is null or flagged.load_level < first_breaks.first_log_write_break_load)
                 then flagged.load_level end) as max_load_within_log_write_limit,
        min(first_breaks.first_cpu_break_load) as first_cpu_break_load,
        min(first_breaks.first_p95_break_load) as first_p95_break_load,
        min(first_breaks.first_log_write_break_load) as first_log_write_break_load,
        min(first_breaks.first_failed_load) as first_failed_load,
        max(case when flagged.new_order_tpm is not null
                  and (first_breaks.first_failed_load is null or flagged.load_level < first_breaks.first_failed_load)
                 then flagged.load_level end) as max_load_before_failure,
        {{ any_true('flagged.is_approx') }} as is_approx
    from flagged
    inner join first_breaks on flagged.sweep_id = first_breaks.sweep_id
    group by flagged.sweep_id

),

provenance as (

    select sweep_id, {{ dbt.listagg("provenance", "' || '", "order by provenance") }} as provenance
    from (select distinct sweep_id, provenance from steps) as distinct_provenance
    group by sweep_id

),

final as (

    select
        summarized.*,
        summarized.knee_load is not null as is_knee_reached,
        {{ var('knee_min_gain_pct') }} as knee_min_gain_pct,
        -- the 'throughput no longer rises' stop condition is the knee itself
        summarized.knee_load as max_load_before_plateau,
        provenance.provenance
    from summarized
    inner join provenance on summarized.sweep_id = provenance.sweep_id

)

select * from final
