-- The condition pairs of fct_sweep_quotient_summaries: every condition pair of one device
-- (fct_condition_quotients) summarised across a sweep of connections, buffer pool or outstanding
-- IOs, every other condition fixed. The statistics, knees and stops are the mart's (formulas in
-- its header, SQL in macros/sweep_summaries.sql). Stored, unlike the mart's device pairs: a
-- condition pair is one device's, so these grow with the devices, not with their square.
--
-- Incremental by device (int_device_fingerprints, macros/incremental_keys.sql): a summary depends
-- only on its device's condition quotients and on where that device's results sit in their
-- sweeps (sweep_side_inputs() lists what it reads), so an update deletes the summaries of a new,
-- changed or vanished device and summarises again only those. fct_condition_quotients is brought
-- up to date before it.
{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='fail',
    pre_hook="{{ delete_rows_of_changed_keys(ref('int_device_fingerprints'), [[['device_a_id', 'device_id']]]) }}"
) }}
-- depends_on: {{ ref('int_device_fingerprints') }}

with condition_pairs as (

    select * from {{ ref('fct_condition_quotients') }} as quotients
    where quotients.quotient is not null
      and {{ keys_to_build_filter(ref('int_device_fingerprints'), [['quotients.device_id', 'device_id']]) }}

),

-- the sweeps of the devices summarised now (a sweep is one device's, and a condition pair's
-- results are its device's): every sweep's steps ranked for one device's pairs took 0.08 s of
-- an update at 10,000 runs
tpcc_steps as (

    select * from {{ ref('int_tpcc_sweep_steps') }} as tpcc_sweep_steps
    where {{ keys_to_build_filter(ref('int_device_fingerprints'), [['tpcc_sweep_steps.device_id', 'device_id']]) }}

),

tpcc_knees as (

    select * from {{ ref('fct_tpcc_sweep_knees') }}

),

io_steps as (

    select * from {{ ref('int_io_sweep_steps') }} as io_sweep_steps
    where {{ keys_to_build_filter(ref('int_device_fingerprints'), [['io_sweep_steps.device_id', 'device_id']]) }}

),

pairs as (

    select
        'condition' as comparison_family,
        varied_condition,
        case when co_varied_a is null then condition_a else {{ dbt.concat(['condition_a', "'; '", 'co_varied_a']) }} end as side_a,
        case when co_varied_b is null then condition_b else {{ dbt.concat(['condition_b', "'; '", 'co_varied_b']) }} end as side_b,
        device_id as device_a_id,
        device_id as device_b_id,
        {{ sweep_pair_columns() | join(',\n        ') }}
    from condition_pairs

),

{{ sweep_summary_ctes() }},

final as (

    select * from summaries

)

select * from final
