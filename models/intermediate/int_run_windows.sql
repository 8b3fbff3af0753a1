-- The measured window of every run, so system metrics (CPU, iostat) exclude ramp-up.
--   TPC-C runs: window_start_at = manifest start + tpcc_start ramp-up (-r), and
--               window_end_at   = window_start_at + measured seconds + one report interval
--               (slack for the time tpcc_start takes to connect before ramp-up starts)
--   other runs: no bounds (fio's ramp_time is per job and job start times are not recorded),
--               so every sample counts except since-boot ones
-- A run without a start time, or samples without timestamps, fall back to "every sample".
with runs as (

    select * from {{ ref('int_runs_identified') }}

),

tpcc as (

    select
        run_id,
        max(ramp_up_s) as ramp_up_s,
        max(coalesce(measured_s, measure_s)) as measured_s,
        max(coalesce(report_interval_s, 10)) as report_interval_s
    from {{ ref('stg_lake__tpcc_runs') }}
    group by run_id

),

windows as (

    select
        runs.run_id,
        runs.started_at as run_started_at,
        tpcc.ramp_up_s,
        tpcc.measured_s,
        case when runs.started_at is not null and tpcc.ramp_up_s is not null
             then {{ dbt.dateadd('second', 'tpcc.ramp_up_s', 'runs.started_at') }} end as window_start_at,
        case when runs.started_at is not null and tpcc.ramp_up_s is not null and tpcc.measured_s is not null
             then {{ dbt.dateadd('second', 'tpcc.ramp_up_s + tpcc.measured_s + tpcc.report_interval_s', 'runs.started_at') }}
        end as window_end_at,
        case
            when tpcc.run_id is null then 'whole run'
            when runs.started_at is null or tpcc.ramp_up_s is null then 'whole run (no start time or ramp-up known)'
            else 'ramp-up excluded'
        end as window_basis
    from runs
    left join tpcc on runs.run_id = tpcc.run_id

),

final as (

    select * from windows

)

select * from final
