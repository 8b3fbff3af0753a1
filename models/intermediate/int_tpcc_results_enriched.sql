-- TPC-C results with the host's CPU and the device's price attached, and the derived metrics:
--
--   new_order_per_s            = new_order_tpm / 60
--   nominal_thread_cycles_per_new_order (CPU path length per New-Order)
--                              = nominal Hz x logical CPUs x (cpu_user_sys_pct / 100) / new_order_per_s
--       Thread cycles: every logical CPU (hardware thread) counted at the nominal clock. The busy
--       share is user+sys of ALL logical CPUs of the database server, as mpstat/iostat 'all' and
--       the studies report it, so the CPU count is logical CPUs. cpu_cycles_per_new_order is the
--       same number under its old name (the site reads it).
--   nominal_thread_cycles_per_txn (= cpu_cycles_per_txn) = the same over transactions of all five
--       types per second, where the source gives all five counts (tpcc-mysql logs; the published
--       studies print New-Order only)
--   thread_cycles_per_new_order / thread_cycles_per_txn: the same with the host's clock where no
--       nominal one is stated: the clock the capture measured (/proc/cpuinfo MHz, a VM's only
--       clock figure), so measured runs on such hosts get a path length too; clock_basis says
--       which clock (nominal | measured). Equal to the nominal_* figures wherever those exist.
--   io_per_new_order           = (data-device read IOPS + write IOPS) / new_order_per_s
--   interval_cv_pct / is_steady_state: from the result's interval series, when it has one
--       (int_tpcc_series_summarized)
--   device_cost_usd_per_tpmc   = device price x data devices / new_order_tpm (one device when the
--       count is not stated: is_device_count_assumed)
-- Bounds (docs/warehouse.md#honest-precision): every figure has <metric>_low / _high (published: from
-- its printed precision; measured: the value itself), and every derived metric is carried through by
-- interval arithmetic: a quotient's low is low numerator / high denominator and vice versa. E.g. the
-- HDD at 100 connections on Samsung's quad socket: 0.4 % CPU = [0.35, 0.45] -> 68.4 .. 87.9 M cycles
-- per New-Order around 78.1 M; is_*_range_wide flags spans over var('wide_range_min_pct') % of the value.
-- Incremental by device (int_tpcc_device_fingerprints, macros/incremental_keys.sql): a row is
-- made from one result and the device, host and series rows it joins, which the device's
-- fingerprint hashes; an update makes again only the rows of new, changed and vanished devices
-- (and the results without a device). Rebuilt whole it cost 0.04 s and 0.06 s of commit per
-- update at 10,000 runs.
{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='fail',
    pre_hook="{{ delete_rows_of_changed_keys(ref('int_tpcc_device_fingerprints'), [[['device_id', 'device_id']]]) }}"
) }}
-- depends_on: {{ ref('int_tpcc_device_fingerprints') }}

with results as (

    select * from {{ ref('int_tpcc_results_unioned') }} as unioned
    where {{ keys_to_build_filter(ref('int_tpcc_device_fingerprints'), [['unioned.device_id', 'device_id']]) }}

),

hosts as (

    select * from {{ ref('int_hosts_unioned') }}

),

devices as (

    select * from {{ ref('int_devices_unioned') }}

),

series as (

    select * from {{ ref('int_tpcc_series_summarized') }}
    where tpcc_result_id is not null

),

joined as (

    select
        results.*,
        hosts.host_nominal_ghz,
        hosts.host_measured_ghz,
        hosts.host_logical_cpus,
        devices.price_usd as device_price_usd,
        coalesce(results.data_device_count, 1) as priced_device_count,
        results.data_device_count is null as is_device_count_assumed,
        series.tpcc_series_id,
        series.throughput_interval_count,
        series.cv_pct as interval_cv_pct,
        series.is_steady_state
    from results
    left join hosts on results.host_id = hosts.host_id
    left join devices on results.device_id = devices.device_id
    left join series on results.tpcc_result_id = series.tpcc_result_id

),

bounded as (

    select
        joined.*,
        {%- for metric in tpcc_figure_metrics() %}
        coalesce({{ metric }}_printed_low, {{ metric }}) as {{ metric }}_low,
        case when {{ metric }}_printed_low is null then {{ metric }} else {{ metric }}_printed_high end as {{ metric }}_high,
        {%- endfor %}
        host_nominal_ghz * 1e9 * host_logical_cpus as host_thread_cycles_per_s,
        coalesce(host_nominal_ghz, host_measured_ghz) * 1e9 * host_logical_cpus as host_clock_thread_cycles_per_s,
        case when host_nominal_ghz is not null then 'nominal'
             when host_measured_ghz is not null then 'measured' end as clock_basis
    from joined

),

derived as (

    select
        bounded.*,
        new_order_tpm / 60.0 as new_order_per_s,
        'logical_cpus' as cpu_count_basis,
        'logical CPUs x nominal clock (thread cycles)' as cycle_basis,
        {{ safe_divide('host_thread_cycles_per_s * (cpu_user_sys_pct / 100.0)', 'new_order_tpm / 60.0') }}
            as nominal_thread_cycles_per_new_order,
        {{ ratio_low('host_thread_cycles_per_s * (cpu_user_sys_pct_low / 100.0)', 'new_order_tpm_high / 60.0', 'new_order_tpm') }}
            as nominal_thread_cycles_per_new_order_low,
        {{ ratio_high('host_thread_cycles_per_s * (cpu_user_sys_pct_high / 100.0)', 'new_order_tpm_low / 60.0') }}
            as nominal_thread_cycles_per_new_order_high,
        {{ safe_divide('host_thread_cycles_per_s * (cpu_user_sys_pct / 100.0)', 'total_txn_per_min / 60.0') }}
            as nominal_thread_cycles_per_txn,
        {{ ratio_low('host_thread_cycles_per_s * (cpu_user_sys_pct_low / 100.0)', 'total_txn_per_min / 60.0', 'total_txn_per_min') }}
            as nominal_thread_cycles_per_txn_low,
        {{ ratio_high('host_thread_cycles_per_s * (cpu_user_sys_pct_high / 100.0)', 'total_txn_per_min / 60.0') }}
            as nominal_thread_cycles_per_txn_high,
        {{ safe_divide('host_clock_thread_cycles_per_s * (cpu_user_sys_pct / 100.0)', 'new_order_tpm / 60.0') }}
            as thread_cycles_per_new_order,
        {{ safe_divide('host_clock_thread_cycles_per_s * (cpu_user_sys_pct / 100.0)', 'total_txn_per_min / 60.0') }}
            as thread_cycles_per_txn,
        {{ safe_divide('data_read_iops + data_write_iops', 'new_order_tpm / 60.0') }} as io_per_new_order,
        {{ ratio_low('data_read_iops_low + data_write_iops_low', 'new_order_tpm_high / 60.0', 'new_order_tpm') }} as io_per_new_order_low,
        {{ ratio_high('data_read_iops_high + data_write_iops_high', 'new_order_tpm_low / 60.0') }} as io_per_new_order_high,
        {{ safe_divide('device_price_usd * priced_device_count', 'new_order_tpm') }} as device_cost_usd_per_tpmc,
        {{ ratio_low('device_price_usd * priced_device_count', 'new_order_tpm_high', 'new_order_tpm') }} as device_cost_usd_per_tpmc_low,
        {{ ratio_high('device_price_usd * priced_device_count', 'new_order_tpm_low') }} as device_cost_usd_per_tpmc_high
    from bounded

),

flagged as (

    select
        derived.*,
        -- the old names, kept for readers of the first marts (the site reads cpu_cycles_per_new_order)
        nominal_thread_cycles_per_new_order as cpu_cycles_per_new_order,
        nominal_thread_cycles_per_txn as cpu_cycles_per_txn,
        {{ is_range_wide('nominal_thread_cycles_per_new_order_low', 'nominal_thread_cycles_per_new_order_high', 'nominal_thread_cycles_per_new_order') }}
            as is_path_length_range_wide,
        {{ range_width_pct('nominal_thread_cycles_per_new_order_low', 'nominal_thread_cycles_per_new_order_high', 'nominal_thread_cycles_per_new_order') }}
            as path_length_range_pct
    from derived

),

final as (

    select * from flagged

)

select * from final
