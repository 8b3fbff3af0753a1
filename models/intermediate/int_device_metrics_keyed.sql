-- Every device-level result number in long form with its comparison key: the explicit text of
-- the conditions two numbers must share before one may be divided by the other.
--
--   TPC-C:  source kind, study, host, DB server, config, kit, warehouses, connections,
--           buffer pool, page size, data device count and array layout
--   fio:    source kind, host, load profile (access, read %, block size), direction,
--           outstanding IOs, IO engine, direct IO, measurement area, device count and layout
--   published IO (Fujitsu): study, the study's own table or text passage (its conditions, such
--           as disk cache or measurement area, are the ones that table states), profile, array,
--           outstanding IOs and the figure's qualifier (about / up to / range end ...)
--
-- A condition the source does not state is spelled 'n/a' and matches only another 'n/a'.
-- Materialized as a table: several models and tests read it, a view would recompute the chain.
{{ config(materialized='table') }}

with tpcc as (

    select * from {{ ref('int_tpcc_results_enriched') }}
    where device_id is not null

),

published_io as (

    select * from {{ ref('stg_lake__published_io_results') }}

),

fio as (

    select * from {{ ref('int_fio_results_joined') }}
    where device_id is not null and coalesce(is_aggregate, false) = false and not coalesce(is_interim, false)

),

tpcc_keyed as (

    select
        'tpcc' as result_domain,
        source_kind,
        {{ condition_key([['kind', 'source_kind'], ['study', 'study_id'], ['host', 'host_id'],
                          ['server', 'db_server'], ['config', 'db_config_id'], ['kit', 'kit'],
                          ['warehouses', 'warehouses'], ['connections', 'connections'],
                          ['buffer_pool_gib', 'buffer_pool_gib'], ['page_size_kib', 'page_size_kib'],
                          ['devices', 'data_device_count'], ['layout', 'array_layout']]) }} as comparison_key,
        study_id,
        host_id,
        device_id,
        tpcc_result_id as fact_id,
        cast(connections as {{ type_double() }}) as load_level,
        cast(null as {{ dbt.type_string() }}) as profile_id,
        db_config_id,
        connections,
        buffer_pool_gib,
        page_size_kib,
        cast(null as {{ dbt.type_int() }}) as outstanding_ios,
        array_layout,
        is_approx,
        provenance,
        new_order_tpm, p95_new_order_ms, max_new_order_ms, cpu_user_sys_pct, cpu_iowait_pct,
        cpu_cycles_per_new_order, io_per_new_order, device_cost_usd_per_tpmc
    from tpcc

),

published_io_keyed as (

    select
        'io' as result_domain,
        'published' as source_kind,
        {{ condition_key([['kind', "'published'"], ['study', 'study_id'], ['source', 'citation'],
                          ['profile', 'profile_id'], ['array', 'array_layout'],
                          ['outstanding_ios', 'outstanding_ios'], ['figure', 'qualifier']]) }} as comparison_key,
        study_id,
        host_id,
        device_id,
        {{ surrogate_key(['run_id', 'source_path', 'csv_line']) }} as fact_id,
        cast(outstanding_ios as {{ type_double() }}) as load_level,
        profile_id,
        cast(null as {{ dbt.type_string() }}) as db_config_id,
        cast(null as {{ dbt.type_int() }}) as connections,
        cast(null as {{ type_double() }}) as buffer_pool_gib,
        cast(null as {{ dbt.type_int() }}) as page_size_kib,
        outstanding_ios,
        array_layout,
        is_approx,
        {{ dbt.concat(["study_id", "': '", "citation"]) }} as provenance,
        case when metric = 'iops' then metric_value end as iops,
        case when metric = 'mb_per_s' then metric_value end as mib_per_s,
        case when metric = 'min_read_latency_ms' then metric_value end as min_read_latency_ms,
        case when metric = 'min_write_latency_ms' then metric_value end as min_write_latency_ms
    from published_io

),

fio_keyed as (

    select
        'io' as result_domain,
        source_kind,
        {{ condition_key([['kind', 'source_kind'], ['host', 'host_id'], ['profile', 'profile_id'],
                          ['direction', 'direction'], ['outstanding_ios', 'outstanding_ios'],
                          ['engine', 'ioengine'], ['direct', 'is_direct_io'],
                          ['area', 'coalesce(fio_measurement_area, measurement_area)'],
                          ['devices', 'data_device_count'], ['layout', 'data_array_layout']]) }} as comparison_key,
        cast(null as {{ dbt.type_string() }}) as study_id,
        host_id,
        device_id,
        fio_result_id as fact_id,
        cast(outstanding_ios as {{ type_double() }}) as load_level,
        profile_id,
        cast(null as {{ dbt.type_string() }}) as db_config_id,
        cast(null as {{ dbt.type_int() }}) as connections,
        cast(null as {{ type_double() }}) as buffer_pool_gib,
        cast(null as {{ dbt.type_int() }}) as page_size_kib,
        outstanding_ios,
        data_array_layout as array_layout,
        false as is_approx,
        {{ dbt.concat(["'run '", "run_id", "': '", "source_path"]) }} as provenance,
        iops,
        bw_mib_per_s as mib_per_s,
        clat_p99_us,
        lat_mean_us
    from fio

),

{%- set common = ['result_domain', 'source_kind', 'comparison_key', 'study_id', 'host_id', 'device_id',
                  'fact_id', 'load_level', 'profile_id', 'db_config_id', 'connections', 'buffer_pool_gib',
                  'page_size_kib', 'outstanding_ios', 'array_layout', 'is_approx', 'provenance'] %}

unioned as (
    {{ unpivot_metrics('tpcc_keyed', [['new_order_tpm', 'true'], ['p95_new_order_ms', 'false'],
                                      ['max_new_order_ms', 'false'], ['cpu_user_sys_pct', 'null'],
                                      ['cpu_iowait_pct', 'false'], ['cpu_cycles_per_new_order', 'false'],
                                      ['io_per_new_order', 'null'], ['device_cost_usd_per_tpmc', 'false']], common) }}
    union all
    {{ unpivot_metrics('published_io_keyed', [['iops', 'true'], ['mib_per_s', 'true'],
                                              ['min_read_latency_ms', 'false'], ['min_write_latency_ms', 'false']], common) }}
    union all
    {{ unpivot_metrics('fio_keyed', [['iops', 'true'], ['mib_per_s', 'true'], ['clat_p99_us', 'false'],
                                     ['lat_mean_us', 'false']], common) }}

),

final as (

    select * from unioned

)

select * from final
