-- One row per device of the rows int_device_metrics_keyed, fct_device_capabilities and
-- fct_device_performance are made from: a fingerprint of every column of the device's rows in
-- int_tpcc_results_enriched, int_published_io_results_described, int_fio_results_joined and
-- dim_devices, and whether it is new or changed since the previous build
-- (macros/incremental_keys.sql). int_device_metrics_keyed makes each of its rows from one of those
-- rows alone (the other two, each device's rows from that device's), so an update rebuilds only the rows of new,
-- changed and vanished devices: at 10,000 runs one new run changes one device of ~1,300, and
-- its comparison keys (eleven texts of ~345 characters per row) are no longer written again for
-- all 142,563 rows. Every column, not only those the keyed model reads today (columns_of): a
-- column it reads tomorrow is covered already.
-- Materialized as a table: its previous build is what the next one compares with.
{{ config(materialized='table') }}
{%- set previous = previous_build_of_this() %}
{%- set sources = [
    ['tpcc', ref('int_tpcc_results_enriched')],
    ['published_io', ref('int_published_io_results_described')],
    ['fio', ref('int_fio_results_joined')],
    ['device', ref('dim_devices')]] %}

with tpcc as (

    select * from {{ ref('int_tpcc_results_enriched') }}
    where device_id is not null

),

published_io as (

    select * from {{ ref('int_published_io_results_described') }}
    where device_id is not null

),

fio as (

    select * from {{ ref('int_fio_results_joined') }}
    where device_id is not null

),

device as (

    select * from {{ ref('dim_devices') }}
    where device_id is not null

),

input_rows as (
    {%- for name, relation in sources %}

    select
        device_id,
        {{ change_fingerprint(["'" ~ name ~ "'"] + columns_of(relation, ['device_id'])) }} as row_fingerprint
    from {{ name }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}

),

{{ fingerprinted_and_flagged('input_rows', ['device_id'], previous) }}

select * from flagged
