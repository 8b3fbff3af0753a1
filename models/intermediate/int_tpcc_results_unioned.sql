-- TPC-C results from every source in one shape, one row per measured tpcc_start output (a run
-- at one connection count) or per printed test condition (published). Metrics are New-Order
-- based; the kit is a condition of its own (tpcc-mysql's TpmC, Percona's NOTPM and a SQL Server
-- kit's NOPM all count New-Order transactions per minute, but compare only within one kit).
-- Measured rows take CPU and device figures from the run's measured window
-- (int_runs_cpu_summarized, int_runs_iostat_summarized).
-- Published figures carry their printed-precision bounds (<metric>_printed_low / _printed_high,
-- macros/precision.sql); measured rows leave them null (int_tpcc_results_enriched: exact figures).
-- Materialized as a table: several models and tests read it, a view would recompute the chain.
{{ config(materialized='table') }}

with published as (

    select * from {{ ref('int_published_tpcc_results_pivoted') }}

),

sqlserver as (

    select * from {{ ref('stg_lake__published_sqlserver_results') }}

),

studies as (

    select * from {{ ref('stg_lake__published_studies') }}

),

tpcc_runs as (

    select * from {{ ref('int_tpcc_runs_summarized') }}

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
        cast(null as {{ dbt.type_int() }}) as data_device_count,
        cast(null as {{ dbt.type_string() }}) as array_layout,
        published.db_config_id,
        published.db_server,
        case when lower(studies.benchmark_tool) like '%tpcc-mysql%' then 'tpcc-mysql'
             else studies.benchmark_tool end as kit,
        published.warehouses,
        published.connections,
        published.buffer_pool_gib,
        published.page_size_kib,
        published.new_order_tpm,
        cast(null as {{ type_double() }}) as tpmc_printed,
        cast(null as {{ type_double() }}) as tpmc_from_counts,
        published.p95_new_order_ms,
        case when published.p95_new_order_ms is not null then 'as published' end as p95_basis,
        published.max_new_order_ms,
        published.cpu_user_sys_pct,
        published.cpu_iowait_pct,
        published.data_read_iops,
        published.data_write_iops,
        published.log_write_iops,
        cast(null as {{ type_double() }}) as total_txn_per_min,
        cast(null as {{ type_double() }}) as data_read_await_ms,
        cast(null as {{ type_double() }}) as data_write_await_ms,
        cast(null as {{ type_double() }}) as log_write_await_ms,
        cast(null as {{ dbt.type_string() }}) as system_window_basis,
        case when published.failed_figure_count > 0 then 'failed' else 'ok' end as result_status,
        {%- for metric in tpcc_figure_metrics() %}
        published.{{ metric }}_low as {{ metric }}_printed_low,
        published.{{ metric }}_high as {{ metric }}_printed_high,
        {%- endfor %}
        published.is_approx,
        cast(null as {{ dbt.type_string() }}) as qualifier,
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
        cast(null as {{ dbt.type_string() }}) as db_config_id,
        'Microsoft SQL Server' as db_server,
        'SQL Server OLTP kit (not named; NOPM)' as kit,
        cast(null as {{ dbt.type_int() }}) as warehouses,
        cast(null as {{ dbt.type_int() }}) as connections,
        cast(null as {{ type_double() }}) as buffer_pool_gib,
        cast(null as {{ dbt.type_int() }}) as page_size_kib,
        case when sqlserver.metric = 'nopm' then sqlserver.metric_value end as new_order_tpm,
        cast(null as {{ type_double() }}) as tpmc_printed,
        cast(null as {{ type_double() }}) as tpmc_from_counts,
        cast(null as {{ type_double() }}) as p95_new_order_ms,
        cast(null as {{ dbt.type_string() }}) as p95_basis,
        cast(null as {{ type_double() }}) as max_new_order_ms,
        cast(null as {{ type_double() }}) as cpu_user_sys_pct,
        cast(null as {{ type_double() }}) as cpu_iowait_pct,
        cast(null as {{ type_double() }}) as data_read_iops,
        cast(null as {{ type_double() }}) as data_write_iops,
        cast(null as {{ type_double() }}) as log_write_iops,
        cast(null as {{ type_double() }}) as total_txn_per_min,
        cast(null as {{ type_double() }}) as data_read_await_ms,
        cast(null as {{ type_double() }}) as data_write_await_ms,
        cast(null as {{ type_double() }}) as log_write_await_ms,
        cast(null as {{ dbt.type_string() }}) as system_window_basis,
        sqlserver.result_status,
        {%- for metric in tpcc_figure_metrics() %}
        {%- if metric == 'new_order_tpm' %}
        case when sqlserver.metric = 'nopm' then {{ printed_low('sqlserver.metric_value', 'sqlserver.metric_value_resolution', 'sqlserver.qualifier') }} end as new_order_tpm_printed_low,
        case when sqlserver.metric = 'nopm' then {{ printed_high('sqlserver.metric_value', 'sqlserver.metric_value_resolution', 'sqlserver.qualifier') }} end as new_order_tpm_printed_high,
        {%- else %}
        cast(null as {{ type_double() }}) as {{ metric }}_printed_low,
        cast(null as {{ type_double() }}) as {{ metric }}_printed_high,
        {%- endif %}
        {%- endfor %}
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
        {%- for metric in tpcc_figure_metrics() %}
        cast(null as {{ type_double() }}) as {{ metric }}_printed_low,
        cast(null as {{ type_double() }}) as {{ metric }}_printed_high,
        {%- endfor %}
        false as is_approx,
        cast(null as {{ dbt.type_string() }}) as qualifier,
        {{ dbt.concat(["'run '", "tpcc_runs.run_id", "': '", "tpcc_runs.source_path"]) }} as provenance
    from tpcc_runs
    left join runs on tpcc_runs.run_id = runs.run_id
    left join cpu on tpcc_runs.run_id = cpu.run_id
    left join io on tpcc_runs.run_id = io.run_id
    -- a HammerDB time profile alone holds response times, not a rate: its run's rate is in the log
    where coalesce(tpcc_runs.kit, '') <> 'hammerdb' or coalesce(tpcc_runs.last_phase, '') <> 'profile'

),

unioned as (

    select * from published_shaped
    union all
    select * from sqlserver_shaped
    union all
    select * from measured_shaped

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
