-- One row per device of int_device_metrics_keyed: a fingerprint of everything the device-level
-- comparison marts read of it, and whether it is new or changed since the previous build
-- (macros/incremental_keys.sql). Each row of fct_condition_quotients and of
-- int_condition_sweeps_summarized belongs to one device and depends only on what this hashes
-- for it, so an update deletes and pairs again only the rows of new, changed and vanished
-- devices: one new run changes one device of ~1,300 at 10,000 runs.
--   result rows  the device's rows of int_device_metrics_keyed, the columns the marts read
--                (device_comparison_inputs(), macros/condition_quotients.sql);
--   sweep sides  where each of the device's results sits in a sweep: its TPC-C sweep's knee and
--                stop levels (int_tpcc_sweep_steps, fct_tpcc_sweep_knees) and its IO sweep's
--                steps (int_io_sweep_steps), the columns sweep_side_inputs() names, which
--                int_condition_sweeps_summarized reads. A sweep is one device's, so a run joining it
--                changes only that device.
--   key_fingerprint   = hash of the device's row hashes, in order;
--   is_new_or_changed = no such device with this fingerprint in the previous build (true for
--                       all in a full build).
-- Materialized as a table: its previous build is what the next one compares with.
{{ config(materialized='table') }}
{%- set previous = previous_build_of_this() %}
{%- set sides = sweep_side_inputs() %}

with metrics as (

    select * from {{ ref('int_device_metrics_keyed') }}

),

tpcc_steps as (

    select * from {{ ref('int_tpcc_sweep_steps') }}

),

tpcc_knees as (

    select * from {{ ref('fct_tpcc_sweep_knees') }}

),

io_steps as (

    select * from {{ ref('int_io_sweep_steps') }}

),

result_rows as (

    select
        device_id,
        {{ change_fingerprint(device_comparison_inputs()) }} as row_fingerprint
    from metrics

),

device_facts as (

    select distinct device_id, fact_id
    from metrics

),

tpcc_side_rows as (

    select
        device_facts.device_id,
        {{ change_fingerprint(["'tpcc'"] + prefixed(sides['tpcc_steps'], 'tpcc_steps.') + prefixed(sides['tpcc_knees'], 'tpcc_knees.')) }} as row_fingerprint
    from device_facts
    inner join tpcc_steps on device_facts.fact_id = tpcc_steps.tpcc_result_id
    inner join tpcc_knees on tpcc_steps.sweep_id = tpcc_knees.sweep_id

),

io_side_rows as (

    select
        device_facts.device_id,
        {{ change_fingerprint(["'io'"] + prefixed(sides['io_steps'], 'io_steps.')) }} as row_fingerprint
    from device_facts
    inner join io_steps on device_facts.fact_id = io_steps.fact_id

),

all_rows as (

    select * from result_rows
    union all
    select * from tpcc_side_rows
    union all
    select * from io_side_rows

),

{{ fingerprinted_and_flagged('all_rows', ['device_id'], previous) }}

select * from flagged
