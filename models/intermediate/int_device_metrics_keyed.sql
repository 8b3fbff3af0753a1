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
--
-- Every row also names its conditions as columns (macros/comparisons.sql: comparison_conditions,
-- the same set for every domain, null where a domain has no such condition) and carries
-- key_except_<kind>: the key of every condition but the ones a condition quotient of that kind
-- varies (fct_condition_quotients, fct_sweep_quotient_summaries). Published IO figures are keyed
-- there by the citation's section rather than the sentence, without the hedge word: a section
-- states one set of test conditions, and the hedge is carried by the figure's bounds.
--
-- metric_value_low / _high: the figure's bounds (published: printed precision; measured: the value).
-- printed_figure_id: one printed figure; rows sharing it (a figure the paper stated jointly for
-- several capacities or layouts) are never divided by each other. is_range_end: one end of a
-- printed range, not a point figure, never paired.
--
-- Incremental by device (int_device_input_fingerprints, macros/incremental_keys.sql): each row
-- is made from one result row alone, so an update deletes the rows of new, changed and vanished
-- devices and makes again only theirs (a full build made all 142,563 rows' keys again at 10,000
-- runs: ~6 s of every update). Published figures without a device are few and rebuilt every time.
{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='fail',
    pre_hook="{{ delete_rows_of_changed_keys(ref('int_device_input_fingerprints'), [[['device_id', 'device_id']]]) }}"
) }}
-- depends_on: {{ ref('int_device_input_fingerprints') }}

with tpcc as (

    select * from {{ ref('int_tpcc_results_enriched') }} as tpcc_results
    where tpcc_results.device_id is not null
      and {{ keys_to_build_filter(ref('int_device_input_fingerprints'), [['tpcc_results.device_id', 'device_id']]) }}

),

published_io as (

    select * from {{ ref('int_published_io_results_described') }} as published_results
    where {{ keys_to_build_filter(ref('int_device_input_fingerprints'), [['published_results.device_id', 'device_id']]) }}

),

fio as (

    select * from {{ ref('int_fio_results_joined') }} as fio_results
    where fio_results.device_id is not null and coalesce(fio_results.is_aggregate, false) = false
      and not coalesce(fio_results.is_interim, false) and not coalesce(fio_results.is_breakdown, false)
      and {{ keys_to_build_filter(ref('int_device_input_fingerprints'), [['fio_results.device_id', 'device_id']]) }}

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
        tpcc_result_id as printed_figure_id,
        false as is_range_end,
        cast(connections as {{ type_double() }}) as load_level,
        db_server,
        db_config_id,
        kit,
        warehouses,
        connections,
        buffer_pool_gib,
        page_size_kib,
        data_device_count as device_count,
        array_layout,
        is_approx,
        provenance,
        {%- for metric in tpcc_figure_metrics() %}
        {{ metric }}, {{ metric }}_low, {{ metric }}_high,
        {%- endfor %}
        nominal_thread_cycles_per_new_order, nominal_thread_cycles_per_new_order_low, nominal_thread_cycles_per_new_order_high,
        nominal_thread_cycles_per_txn, nominal_thread_cycles_per_txn_low, nominal_thread_cycles_per_txn_high,
        io_per_new_order, io_per_new_order_low, io_per_new_order_high,
        device_cost_usd_per_tpmc, device_cost_usd_per_tpmc_low, device_cost_usd_per_tpmc_high
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
        published_io_result_id as fact_id,
        printed_figure_id,
        is_range_end,
        cast(outstanding_ios as {{ type_double() }}) as load_level,
        device_count,
        array_layout,
        processes_per_device,
        profile_id,
        outstanding_ios,
        measurement_area,
        source_section,
        is_approx,
        provenance,
        iops, iops_low, iops_high,
        mib_per_s, mib_per_s_low, mib_per_s_high,
        min_read_latency_ms,
        case when min_read_latency_ms is not null then metric_value_low end as min_read_latency_ms_low,
        case when min_read_latency_ms is not null then metric_value_high end as min_read_latency_ms_high,
        min_write_latency_ms,
        case when min_write_latency_ms is not null then metric_value_low end as min_write_latency_ms_low,
        case when min_write_latency_ms is not null then metric_value_high end as min_write_latency_ms_high
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
        host_id,
        device_id,
        fio_result_id as fact_id,
        fio_result_id as printed_figure_id,
        false as is_range_end,
        cast(outstanding_ios as {{ type_double() }}) as load_level,
        data_device_count as device_count,
        data_array_layout as array_layout,
        profile_id,
        direction,
        outstanding_ios,
        ioengine,
        is_direct_io,
        coalesce(fio_measurement_area, measurement_area) as measurement_area,
        false as is_approx,
        {{ dbt.concat(["'run '", "run_id", "': '", "source_path"]) }} as provenance,
        iops,
        bw_mib_per_s as mib_per_s,
        clat_p99_us,
        lat_mean_us
    from fio

),

{#- The condition columns every long-form row carries, declared once with the type of the null a
    branch without the condition gets (macros/union_by_name.sql: with_pads). -#}
{%- set keyed_columns = [['result_domain', 'string'], ['source_kind', 'string'], ['comparison_key', 'string'],
                         ['study_id', 'string'], ['host_id', 'string'], ['device_id', 'string'],
                         ['fact_id', 'string'], ['printed_figure_id', 'string'], ['is_range_end', 'boolean'],
                         ['load_level', 'double'], ['db_server', 'string'], ['db_config_id', 'string'],
                         ['kit', 'string'], ['warehouses', 'int'], ['connections', 'int'],
                         ['buffer_pool_gib', 'double'], ['page_size_kib', 'int'], ['device_count', 'int'],
                         ['array_layout', 'string'], ['processes_per_device', 'int'], ['profile_id', 'string'],
                         ['direction', 'string'], ['outstanding_ios', 'int'], ['ioengine', 'string'],
                         ['is_direct_io', 'boolean'], ['measurement_area', 'string'], ['source_section', 'string'],
                         ['is_approx', 'boolean'], ['provenance', 'string']] %}
{%- set common = keyed_columns | map('first') | list %}
{%- set tpcc_has = ['result_domain', 'source_kind', 'comparison_key', 'study_id', 'host_id', 'device_id', 'fact_id',
                    'printed_figure_id', 'is_range_end', 'load_level', 'db_server', 'db_config_id', 'kit',
                    'warehouses', 'connections', 'buffer_pool_gib', 'page_size_kib', 'device_count',
                    'array_layout', 'is_approx', 'provenance'] %}
{%- set published_has = ['result_domain', 'source_kind', 'comparison_key', 'study_id', 'host_id', 'device_id',
                         'fact_id', 'printed_figure_id', 'is_range_end', 'load_level', 'device_count',
                         'array_layout', 'processes_per_device', 'profile_id', 'outstanding_ios',
                         'measurement_area', 'source_section', 'is_approx', 'provenance'] %}
{%- set fio_has = ['result_domain', 'source_kind', 'comparison_key', 'host_id', 'device_id', 'fact_id',
                   'printed_figure_id', 'is_range_end', 'load_level', 'device_count', 'array_layout',
                   'profile_id', 'direction', 'outstanding_ios', 'ioengine', 'is_direct_io',
                   'measurement_area', 'is_approx', 'provenance'] %}

unioned as (
    {{ unpivot_metrics(with_pads('tpcc_keyed', keyed_columns, tpcc_has), [['new_order_tpm', 'true'], ['p95_new_order_ms', 'false'],
                                      ['max_new_order_ms', 'false'], ['cpu_user_sys_pct', 'null'],
                                      ['cpu_iowait_pct', 'false'], ['nominal_thread_cycles_per_new_order', 'false'],
                                      ['nominal_thread_cycles_per_txn', 'false'],
                                      ['io_per_new_order', 'null'], ['device_cost_usd_per_tpmc', 'false']], common,
                       bounds=true) }}
    union all
    {{ unpivot_metrics(with_pads('published_io_keyed', keyed_columns, published_has), [['iops', 'true'], ['mib_per_s', 'true'],
                                              ['min_read_latency_ms', 'false'], ['min_write_latency_ms', 'false']], common,
                       bounds=true) }}
    union all
    {{ unpivot_metrics(with_pads('fio_keyed', keyed_columns, fio_has), [['iops', 'true'], ['mib_per_s', 'true'], ['clat_p99_us', 'false'],
                                     ['lat_mean_us', 'false']], common) }}

),

final as (

    select
        unioned.*,
        {%- for kind in condition_kinds() %}
        {{ condition_key_except(kind['varies'] + kind['with'] + kind['stated_equal']) }} as key_except_{{ kind['name'] }}{{ ',' if not loop.last }}
        {%- endfor %}
    from unioned

)

select * from final
