-- Published TPC-C figures pivoted from one number per row to one row per test condition
-- (study, host, device, config, server, warehouses, connections, buffer pool, page size).
-- A condition printed in several tables (Table 1 throughput, Table 2 CPU, Table 3 iowait, chart
-- data for latencies) becomes one row; every citation is kept in `citations`.
-- Each figure also gets its printed-precision bounds <metric>_low / <metric>_high (macros/precision.sql:
-- half a unit of the last printed digit). A figure printed twice keeps the intersection of both.
with results_printed as (

    select * from {{ ref('stg_lake__published_tpcc_results') }}

),

results as (

    select
        results_printed.*,
        {{ printed_low('metric_value', 'metric_value_resolution', 'null') }} as metric_value_low,
        {{ printed_high('metric_value', 'metric_value_resolution', 'null') }} as metric_value_high
    from results_printed

),

citations as (

    select distinct
        study_id, host_id, device_id, db_config_id, db_server, warehouses, connections,
        buffer_pool_gib, page_size_kib, citation
    from results

),

citations_listed as (

    select
        study_id, host_id, device_id, db_config_id, db_server, warehouses, connections,
        buffer_pool_gib, page_size_kib,
        {{ dbt.listagg("citation", "'; '", "order by citation") }} as citations
    from citations
    group by study_id, host_id, device_id, db_config_id, db_server, warehouses, connections,
        buffer_pool_gib, page_size_kib

),

pivoted as (

    select
        study_id, host_id, device_id, db_config_id, db_server, warehouses, connections,
        buffer_pool_gib, page_size_kib,
        min(run_id) as run_id,
        min(source_path) as source_path,
        max(case when metric = 'new_order_tpm' then metric_value end) as new_order_tpm,
        max(case when metric = 'p95_new_order_ms' then metric_value end) as p95_new_order_ms,
        max(case when metric = 'max_new_order_ms' then metric_value end) as max_new_order_ms,
        max(case when metric = 'cpu_user_sys_pct' then metric_value end) as cpu_user_sys_pct,
        max(case when metric = 'cpu_iowait_pct' then metric_value end) as cpu_iowait_pct,
        max(case when metric = 'data_read_iops' then metric_value end) as data_read_iops,
        max(case when metric = 'data_write_iops' then metric_value end) as data_write_iops,
        max(case when metric = 'log_write_iops' then metric_value end) as log_write_iops,
        {%- for metric in tpcc_figure_metrics() %}
        max(case when metric = '{{ metric }}' then metric_value_low end) as {{ metric }}_low,
        min(case when metric = '{{ metric }}' then metric_value_high end) as {{ metric }}_high,
        {%- endfor %}
        -- the same condition and metric printed twice must agree (see assert_published_duplicates_agree)
        count(*) as figure_count,
        sum(case when result_status = 'failed' then 1 else 0 end) as failed_figure_count,
        {{ any_true('is_approx') }} as is_approx
    from results
    group by study_id, host_id, device_id, db_config_id, db_server, warehouses, connections,
        buffer_pool_gib, page_size_kib

),

final as (

    select
        pivoted.*,
        citations_listed.citations
    from pivoted
    inner join citations_listed
        on  pivoted.study_id = citations_listed.study_id
        and pivoted.device_id = citations_listed.device_id
        and {{ null_safe_equal('pivoted.host_id', 'citations_listed.host_id') }}
        and {{ null_safe_equal('pivoted.db_config_id', 'citations_listed.db_config_id') }}
        and {{ null_safe_equal('pivoted.db_server', 'citations_listed.db_server') }}
        and {{ null_safe_equal('pivoted.warehouses', 'citations_listed.warehouses') }}
        and {{ null_safe_equal('pivoted.connections', 'citations_listed.connections') }}
        and {{ null_safe_equal('pivoted.buffer_pool_gib', 'citations_listed.buffer_pool_gib') }}
        and {{ null_safe_equal('pivoted.page_size_kib', 'citations_listed.page_size_kib') }}

)

select * from final
