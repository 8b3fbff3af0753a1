-- One row per database configuration: a fingerprint of every column dim_db_config_diffs reads
-- for it (its parameters, values, inheritance and flags, source kind and study), and whether
-- it is new or changed since the previous build (macros/incremental_keys.sql). A run that adds
-- to a known configuration without changing a value leaves it unchanged, so the update of
-- dim_db_config_diffs has nothing to pair.
-- Materialized as a table: its previous build is what the next one compares with.
{{ config(materialized='table') }}
{%- set previous = previous_build_of_this() %}

with configs as (

    select * from {{ ref('dim_db_configs') }}

),

described as (

    select
        config_id,
        {{ change_fingerprint(['parameter', 'value', 'is_inherited', 'is_flagged', 'source_kind', 'study_id']) }} as row_fingerprint
    from configs

),

{{ fingerprinted_and_flagged('described', ['config_id'], previous) }}

select * from flagged
