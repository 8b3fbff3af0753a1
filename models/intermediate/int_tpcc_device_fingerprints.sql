-- One row per device of the TPC-C results: a fingerprint of every column of what
-- int_tpcc_results_enriched makes the device's rows from (its results in int_tpcc_results_unioned,
-- its row of int_devices_unioned, the rows of int_hosts_unioned its results name, the rows of
-- int_tpcc_series_summarized linked to its results), and whether it is new or changed since the
-- previous build (macros/incremental_keys.sql). int_tpcc_results_enriched makes each row from
-- one result and those rows alone, fct_tpcc_results each row from one enriched row, and
-- int_tpcc_sweep_steps each sweep from one device's results (the sweep key holds the device),
-- so an update rebuilds only the rows of new, changed and vanished devices: at 10,000 runs one
-- new TPC-C run changes one device of ~1,300, and the three tables (100-111 columns, 8,000
-- rows) are no longer written again whole (0.3 s of an update, their commit included).
-- Results without a device are no key: those models make their rows again on every build.
-- Materialized as a table: its previous build is what the next one compares with.
{{ config(materialized='table') }}
{%- set previous = previous_build_of_this() %}

with results as (

    select * from {{ ref('int_tpcc_results_unioned') }}
    where device_id is not null

),

devices as (

    select * from {{ ref('int_devices_unioned') }}

),

hosts as (

    select * from {{ ref('int_hosts_unioned') }}

),

series as (

    select * from {{ ref('int_tpcc_series_summarized') }}

),

result_rows as (

    select
        device_id,
        {{ change_fingerprint(["'result'"] + prefixed(columns_of(ref('int_tpcc_results_unioned'), ['device_id']), 'results.')) }} as row_fingerprint
    from results

),

device_rows as (

    select
        devices.device_id,
        {{ change_fingerprint(["'device'"] + prefixed(columns_of(ref('int_devices_unioned'), ['device_id']), 'devices.')) }} as row_fingerprint
    from devices
    where devices.device_id in (select device_id from results)

),

host_rows as (

    select
        used.device_id,
        {{ change_fingerprint(["'host'"] + prefixed(columns_of(ref('int_hosts_unioned'), ['host_id']), 'hosts.')) }} as row_fingerprint
    from (select distinct device_id, host_id from results) as used
    inner join hosts on used.host_id = hosts.host_id

),

series_rows as (

    select
        results.device_id,
        {{ change_fingerprint(["'series'"] + prefixed(columns_of(ref('int_tpcc_series_summarized'), ['tpcc_series_id']), 'series.')) }} as row_fingerprint
    from results
    inner join series on results.tpcc_result_id = series.tpcc_result_id

),

all_rows as (

    select * from result_rows
    union all
    select * from device_rows
    union all
    select * from host_rows
    union all
    select * from series_rows

),

{{ fingerprinted_and_flagged('all_rows', ['device_id'], previous) }}

select * from flagged
