-- TPC-C results with the host's CPU and the device's price attached, and the derived metrics:
--
--   new_order_per_s            = new_order_tpm / 60
--   cpu_cycles_per_new_order   = nominal Hz x logical CPUs x (cpu_user_sys_pct / 100) / new_order_per_s
--       (CPU path length. The busy share is user+sys of ALL logical CPUs of the database server,
--        as mpstat/iostat 'all' and the studies report it, so the CPU count is logical CPUs.)
--   cpu_cycles_per_txn         = the same over transactions of all five types per second, where
--       the source gives all five counts (tpcc-mysql logs; the published studies do not)
--   io_per_new_order           = (data-device read IOPS + write IOPS) / new_order_per_s
--   interval_cv_pct / is_steady_state: from the result's interval series, when it has one
--       (int_tpcc_series_summarized)
--   device_cost_usd_per_tpmc   = device price x data devices / new_order_tpm (one device when the
--       count is not stated: is_device_count_assumed)
-- Materialized as a table: several models and tests read it, a view would recompute the chain.
{{ config(materialized='table') }}

with results as (

    select * from {{ ref('int_tpcc_results_unioned') }}

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

derived as (

    select
        joined.*,
        new_order_tpm / 60.0 as new_order_per_s,
        'logical_cpus' as cpu_count_basis,
        {{ safe_divide('host_nominal_ghz * 1e9 * host_logical_cpus * (cpu_user_sys_pct / 100.0)', 'new_order_tpm / 60.0') }}
            as cpu_cycles_per_new_order,
        {{ safe_divide('host_nominal_ghz * 1e9 * host_logical_cpus * (cpu_user_sys_pct / 100.0)', 'total_txn_per_min / 60.0') }}
            as cpu_cycles_per_txn,
        {{ safe_divide('data_read_iops + data_write_iops', 'new_order_tpm / 60.0') }} as io_per_new_order,
        {{ safe_divide('device_price_usd * priced_device_count', 'new_order_tpm') }} as device_cost_usd_per_tpmc
    from joined

),

final as (

    select * from derived

)

select * from final
