-- One row per comparison group of fct_condition_quotients: a condition kind, the key of every
-- other condition (key_except_<kind>), the metric and the device. Only numbers of one group are
-- ever divided by each other, so a group whose rows did not change keeps its quotients.
--   key_fingerprint   = hash of the group's rows, each a hash of every column of
--                       int_device_metrics_keyed that fct_condition_quotients reads
--                       (condition_quotient_inputs(): a column it reads and this does not
--                       cover could change without the group being rebuilt)
--   is_new_or_changed = no such group with this fingerprint in the previous build (true for all
--                       in a full build): the groups an update of fct_condition_quotients pairs
--                       again (macros/incremental_keys.sql).
-- Materialized as a table: its previous build is what the next one compares with.
{{ config(materialized='table') }}
{%- set previous = previous_build_of_this() %}

with metrics as (

    select * from {{ ref('int_device_metrics_keyed') }}

),

described as (

    select
        metrics.*,
        {{ surrogate_key(condition_quotient_inputs()) }} as row_fingerprint
    from metrics

),

kinds as (
    {%- for kind in condition_kinds() %}
    select '{{ kind['name'] }}' as varied_condition
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}

),

-- one row per metric row and kind, its group key chosen by the kind: the row fingerprints are
-- computed once, not once per kind
grouped_rows as (

    select
        kinds.varied_condition,
        case kinds.varied_condition
            {%- for kind in condition_kinds() %}
            when '{{ kind['name'] }}' then described.key_except_{{ kind['name'] }}
            {%- endfor %}
        end as shared_conditions,
        described.metric,
        described.device_id,
        described.row_fingerprint
    from described
    cross join kinds

),

fingerprinted as (

    select
        varied_condition,
        shared_conditions,
        metric,
        device_id,
        {{ dbt.hash(dbt.listagg('row_fingerprint', "'|'", 'order by row_fingerprint')) }} as key_fingerprint
    from grouped_rows
    group by varied_condition, shared_conditions, metric, device_id

),

flagged as (

    {{ flag_new_or_changed_keys('fingerprinted', ['varied_condition', 'shared_conditions', 'metric', 'device_id'], previous) }}

)

select * from flagged
