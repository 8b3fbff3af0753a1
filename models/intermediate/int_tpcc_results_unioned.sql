-- TPC-C results from every source in one shape, one row per measured tpcc_start output (a run
-- at one connection count) or per printed test condition (published). Metrics are New-Order
-- based; the kit is a condition of its own (tpcc-mysql's TpmC, Percona's NOTPM and a SQL Server
-- kit's NOPM all count New-Order transactions per minute, but compare only within one kit).
-- Measured rows take CPU and device figures from the run's measured window
-- (int_runs_cpu_summarized, int_runs_iostat_summarized).
-- Published figures carry their printed-precision bounds (<metric>_printed_low / _printed_high,
-- macros/precision.sql); measured rows leave them null (int_tpcc_results_enriched: exact figures).
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): a row is one run's (a
-- measured result joins its own run's summaries; a published one is the published studies' run),
-- so an update unions only new and changed runs' results. A published figure is labelled with its
-- study, rows of the studies' run, which every run's rows are made with (runs_read_by_every_run).
-- Rebuilt whole it cost 0.06 s and 0.04 s of commit per update at 10,000 runs.
{{ config(meta={'runs_read_by_every_run': ['stg_lake__published_studies']}) }}
-- depends_on: {{ ref('int_run_fingerprints') }}

{#- the unioned shape, in output order; each branch below has some of these (macros/union_by_name.sql) -#}
{%- set tpcc_result_columns = [
    ['source_kind', 'string'], ['run_id', 'string'], ['source_path', 'string'], ['study_id', 'string'],
    ['host_id', 'string'], ['device_id', 'string'], ['data_device_count', 'bigint'], ['array_layout', 'string'],
    ['db_config_id', 'string'], ['db_server', 'string'], ['kit', 'string'], ['warehouses', 'bigint'],
    ['connections', 'bigint'], ['buffer_pool_gib', 'double'], ['page_size_kib', 'bigint'],
    ['new_order_tpm', 'double'], ['tpmc_printed', 'double'], ['tpmc_from_counts', 'double'],
    ['p95_new_order_ms', 'double'], ['p95_basis', 'string'], ['max_new_order_ms', 'double'],
    ['cpu_user_sys_pct', 'double'], ['cpu_iowait_pct', 'double'], ['data_read_iops', 'double'],
    ['data_write_iops', 'double'], ['log_write_iops', 'double'], ['total_txn_per_min', 'double'],
    ['data_read_await_ms', 'double'], ['data_write_await_ms', 'double'], ['log_write_await_ms', 'double'],
    ['system_window_basis', 'string'], ['result_status', 'string']] %}
{#- published figures' printed-precision bounds (macros/precision.sql) -#}
{%- set printed_bounds = [] %}
{%- for metric in tpcc_figure_metrics() %}
    {%- do printed_bounds.extend([metric ~ '_printed_low', metric ~ '_printed_high']) %}
    {%- do tpcc_result_columns.extend([[metric ~ '_printed_low', 'double'], [metric ~ '_printed_high', 'double']]) %}
{%- endfor %}
{%- do tpcc_result_columns.extend([['is_approx', 'boolean'], ['qualifier', 'string'], ['provenance', 'string']]) %}

with published as (

    select * from {{ ref('int_published_tpcc_results_pivoted') }}
    where {{ runs_to_build('run_id') }}

),

sqlserver as (

    select * from {{ ref('stg_lake__published_sqlserver_results') }}
    where {{ runs_to_build('run_id') }}

),

studies as (

    select * from {{ ref('stg_lake__published_studies') }}

),

tpcc_runs as (

    select * from {{ ref('int_tpcc_runs_summarized') }}
    where {{ runs_to_build('run_id') }}

),

runs as (

    select * from {{ ref('int_runs_identified') }}

),

cpu as (

    select * from {{ ref('int_runs_cpu_summarized') }}

),

io as (

    select * from {{ ref('int_runs_iostat_summarized') }}

),

published_shaped as (

    select
        'published' as source_kind,
        published.run_id,
        published.source_path,
        published.study_id,
        published.host_id,
        published.device_id,
        published.db_config_id,
        published.db_server,
        case when lower(studies.benchmark_tool) like '%tpcc-mysql%' then 'tpcc-mysql'
             else studies.benchmark_tool end as kit,
        published.warehouses,
        published.connections,
        published.buffer_pool_gib,
        published.page_size_kib,
        published.new_order_tpm,
        published.p95_new_order_ms,
        case when published.p95_new_order_ms is not null then 'as published' end as p95_basis,
        published.max_new_order_ms,
        published.cpu_user_sys_pct,
        published.cpu_iowait_pct,
        published.data_read_iops,
        published.data_write_iops,
        published.log_write_iops,
        case when published.failed_figure_count > 0 then 'failed' else 'ok' end as result_status,
        {%- for metric in tpcc_figure_metrics() %}
        published.{{ metric }}_low as {{ metric }}_printed_low,
        published.{{ metric }}_high as {{ metric }}_printed_high,
        {%- endfor %}
        published.is_approx,
        {{ dbt.concat(["published.study_id", "': '", "published.citations"]) }} as provenance
    from published
    left join studies on published.study_id = studies.study_id

),

sqlserver_shaped as (

    select
        'published' as source_kind,
        sqlserver.run_id,
        sqlserver.source_path,
        sqlserver.study_id,
        sqlserver.host_id,
        sqlserver.device_id,
        sqlserver.device_count as data_device_count,
        sqlserver.array_layout,
        'Microsoft SQL Server' as db_server,
        'SQL Server OLTP kit (not named; NOPM)' as kit,
        case when sqlserver.metric = 'nopm' then sqlserver.metric_value end as new_order_tpm,
        sqlserver.result_status,
        case when sqlserver.metric = 'nopm' then {{ printed_low('sqlserver.metric_value', 'sqlserver.metric_value_resolution', 'sqlserver.qualifier') }} end as new_order_tpm_printed_low,
        case when sqlserver.metric = 'nopm' then {{ printed_high('sqlserver.metric_value', 'sqlserver.metric_value_resolution', 'sqlserver.qualifier') }} end as new_order_tpm_printed_high,
        sqlserver.is_approx,
        sqlserver.qualifier,
        {{ dbt.concat(["sqlserver.study_id", "': '", "sqlserver.citation", "' ('", "sqlserver.storage_config", "')'"]) }}
            as provenance
    from sqlserver

),

measured_shaped as (

    select
        runs.source_kind,
        tpcc_runs.run_id,
        tpcc_runs.source_path,
        runs.study_id,
        runs.host_key as host_id,
        runs.data_device_id as device_id,
        runs.data_device_count,
        runs.data_array_layout as array_layout,
        runs.db_config_id,
        case when runs.db_version is not null
             then {{ dbt.concat(["coalesce(runs.db_server, 'database')", "' '", "runs.db_version"]) }}
             else runs.db_server end as db_server,
        tpcc_runs.kit,
        coalesce(tpcc_runs.warehouses, runs.tpcc_warehouses) as warehouses,
        coalesce(tpcc_runs.connections, runs.tpcc_connections) as connections,
        runs.tpcc_buffer_pool_gib as buffer_pool_gib,
        runs.tpcc_page_size_kib as page_size_kib,
        coalesce(tpcc_runs.tpmc_printed, tpcc_runs.tpmc_from_counts, tpcc_runs.interval_tpmc) as new_order_tpm,
        tpcc_runs.tpmc_printed,
        tpcc_runs.tpmc_from_counts,
        coalesce(tpcc_runs.summary_p95_ms, tpcc_runs.mean_interval_p95_new_order_ms) as p95_new_order_ms,
        case
            when tpcc_runs.summary_p95_ms is not null then 'printed summary'
            when tpcc_runs.mean_interval_p95_new_order_ms is not null then 'mean of interval p95'
        end as p95_basis,
        tpcc_runs.max_interval_new_order_ms as max_new_order_ms,
        cpu.cpu_user_sys_pct,
        cpu.cpu_iowait_pct,
        io.data_read_iops,
        io.data_write_iops,
        io.log_write_iops,
        tpcc_runs.total_txn_per_min,
        io.data_read_await_ms,
        io.data_write_await_ms,
        io.log_write_await_ms,
        coalesce(cpu.cpu_window_basis, case when io.run_id is not null then 'see int_run_windows' end)
            as system_window_basis,
        tpcc_runs.tpcc_status as result_status,
        false as is_approx,
        {{ dbt.concat(["'run '", "tpcc_runs.run_id", "': '", "tpcc_runs.source_path"]) }} as provenance
    from tpcc_runs
    left join runs on tpcc_runs.run_id = runs.run_id
    left join cpu on tpcc_runs.run_id = cpu.run_id
    left join io on tpcc_runs.run_id = io.run_id
    -- a HammerDB time profile alone holds response times, not a rate: its run's rate is in the log
    where coalesce(tpcc_runs.kit, '') <> 'hammerdb' or coalesce(tpcc_runs.last_phase, '') <> 'profile'

),

unioned as (
    {{ union_by_name(tpcc_result_columns, [
        ['published_shaped', ['source_kind', 'run_id', 'source_path', 'study_id', 'host_id', 'device_id', 'db_config_id',
                              'db_server', 'kit', 'warehouses', 'connections', 'buffer_pool_gib', 'page_size_kib',
                              'new_order_tpm', 'p95_new_order_ms', 'p95_basis', 'max_new_order_ms', 'cpu_user_sys_pct',
                              'cpu_iowait_pct', 'data_read_iops', 'data_write_iops', 'log_write_iops', 'result_status']
                             + printed_bounds + ['is_approx', 'provenance']],
        ['sqlserver_shaped', ['source_kind', 'run_id', 'source_path', 'study_id', 'host_id', 'device_id', 'data_device_count',
                              'array_layout', 'db_server', 'kit', 'new_order_tpm', 'result_status',
                              'new_order_tpm_printed_low', 'new_order_tpm_printed_high', 'is_approx', 'qualifier',
                              'provenance']],
        ['measured_shaped', tpcc_result_columns | map(attribute=0) | reject('in', printed_bounds + ['qualifier']) | list]]) }}

),

final as (

    select
        {{ surrogate_key(['source_kind', 'run_id', 'source_path', 'study_id', 'host_id', 'device_id',
                          'data_device_count', 'array_layout', 'db_config_id', 'db_server', 'kit',
                          'warehouses', 'connections', 'buffer_pool_gib', 'page_size_kib']) }} as tpcc_result_id,
        unioned.*
    from unioned

)

select * from final
