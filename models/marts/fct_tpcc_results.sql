-- TPC-C results at the grain run x connections (measured) or printed test condition (published),
-- with CPU path length, IO per New-Order and device cost per tpmC (formulas in
-- int_tpcc_results_enriched and docs/warehouse.md), each figure with its low / high bounds
-- (published: printed precision; measured: the value).
-- Incremental by device, as int_tpcc_results_enriched, of whose rows each row is one
-- (int_tpcc_device_fingerprints, macros/incremental_keys.sql).
{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='fail',
    pre_hook="{{ delete_rows_of_changed_keys(ref('int_tpcc_device_fingerprints'), [[['device_id', 'device_id']]]) }}"
) }}
-- depends_on: {{ ref('int_tpcc_device_fingerprints') }}
with results as (

    select * from {{ ref('int_tpcc_results_enriched') }} as enriched
    where {{ keys_to_build_filter(ref('int_tpcc_device_fingerprints'), [['enriched.device_id', 'device_id']]) }}

),

final as (

    select
        tpcc_result_id,
        source_kind,
        is_approx,
        provenance,
        run_id,
        study_id,
        host_id,
        device_id,
        data_device_count,
        array_layout,
        db_config_id,
        db_server,
        kit,
        warehouses,
        connections,
        buffer_pool_gib,
        page_size_kib,
        result_status,
        qualifier,
        new_order_tpm,
        tpmc_printed,
        tpmc_from_counts,
        new_order_per_s,
        total_txn_per_min,
        p95_new_order_ms,
        p95_basis,
        max_new_order_ms,
        cpu_user_sys_pct,
        cpu_iowait_pct,
        data_read_iops,
        data_write_iops,
        log_write_iops,
        host_nominal_ghz,
        host_measured_ghz,
        clock_basis,
        thread_cycles_per_new_order,
        thread_cycles_per_txn,
        host_logical_cpus,
        cpu_count_basis,
        cpu_cycles_per_new_order,
        cpu_cycles_per_txn,
        io_per_new_order,
        device_price_usd,
        priced_device_count,
        is_device_count_assumed,
        device_cost_usd_per_tpmc,
        tpcc_series_id,
        throughput_interval_count,
        interval_cv_pct,
        is_steady_state,
        data_read_await_ms,
        data_write_await_ms,
        log_write_await_ms,
        system_window_basis,
        source_path,
        {%- for metric in tpcc_figure_metrics() %}
        {{ metric }}_low,
        {{ metric }}_high,
        {%- endfor %}
        cycle_basis,
        nominal_thread_cycles_per_new_order,
        nominal_thread_cycles_per_new_order_low,
        nominal_thread_cycles_per_new_order_high,
        path_length_range_pct,
        is_path_length_range_wide,
        nominal_thread_cycles_per_txn,
        nominal_thread_cycles_per_txn_low,
        nominal_thread_cycles_per_txn_high,
        io_per_new_order_low,
        io_per_new_order_high,
        device_cost_usd_per_tpmc_low,
        device_cost_usd_per_tpmc_high
    from results

)

select * from final
