-- TPC-C results from every source in one shape, one row per run x connections (measured) or
-- per printed test condition (published). Metrics are New-Order based; the kit is a condition
-- of its own (tpcc-mysql's TpmC, Percona's NOTPM and a SQL Server kit's NOPM all count New-Order
-- transactions per minute, but are comparable only within one kit).
with published as (

    select * from {{ ref('int_published_tpcc_results_pivoted') }}

),

sqlserver as (

    select * from {{ ref('stg_lake__published_sqlserver_results') }}

),

studies as (

    select * from {{ ref('stg_lake__published_studies') }}

),

published_shaped as (

    select
        'published' as source_kind,
        published.run_id,
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
        published.p95_new_order_ms,
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
        case when published.failed_figure_count > 0 then 'failed' else 'ok' end as result_status,
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
        cast(null as {{ type_double() }}) as p95_new_order_ms,
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
        sqlserver.result_status,
        sqlserver.is_approx,
        sqlserver.qualifier,
        {{ dbt.concat(["sqlserver.study_id", "': '", "sqlserver.citation", "' ('", "sqlserver.storage_config", "')'"]) }}
            as provenance
    from sqlserver

),

unioned as (

    select * from published_shaped
    union all
    select * from sqlserver_shaped

),

final as (

    select
        {{ surrogate_key(['source_kind', 'run_id', 'study_id', 'host_id', 'device_id', 'data_device_count',
                          'array_layout', 'db_config_id', 'db_server', 'kit', 'warehouses', 'connections',
                          'buffer_pool_gib', 'page_size_kib']) }} as tpcc_result_id,
        unioned.*
    from unioned

)

select * from final
