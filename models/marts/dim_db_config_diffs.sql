-- Parameters that differ between two database configurations, for every ordered pair of
-- configurations (config_a, config_b): a value that changed, or a parameter only one sets.
-- Values are compared verbatim after trimming spaces ('<data storage>' and '<data_storage>'
-- differ, as printed).
--
-- Incremental by configuration (macros/incremental_keys.sql): an update deletes the pairs of
-- changed and vanished configurations and pairs only the new and changed ones
-- (int_db_config_fingerprints) with every configuration; a full build pairs them all.
{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='fail',
    pre_hook="{{ delete_rows_of_changed_keys(ref('int_db_config_fingerprints'), [[['config_a', 'config_id']], [['config_b', 'config_id']]]) }}"
) }}
-- depends_on: {{ ref('int_db_config_fingerprints') }}

with configs as (

    select * from {{ ref('dim_db_configs') }}

),

config_ids as (

    select distinct config_id, source_kind, study_id from configs

),

pairs as (

    select
        a.config_id as config_a,
        b.config_id as config_b,
        a.source_kind as source_kind_a,
        b.source_kind as source_kind_b,
        a.study_id as study_a,
        b.study_id as study_b
    from config_ids as a
    inner join config_ids as b on a.config_id <> b.config_id
    where {{ keys_to_build_filter(ref('int_db_config_fingerprints'), [['a.config_id', 'config_id']]) }}
       or {{ keys_to_build_filter(ref('int_db_config_fingerprints'), [['b.config_id', 'config_id']]) }}

),

parameters as (

    select distinct config_id, parameter from configs

),

pair_parameters as (

    select pairs.*, parameters.parameter
    from pairs
    inner join parameters on parameters.config_id = pairs.config_a
    union
    select pairs.*, parameters.parameter
    from pairs
    inner join parameters on parameters.config_id = pairs.config_b

),

compared as (

    select
        pair_parameters.config_a,
        pair_parameters.config_b,
        pair_parameters.parameter,
        a.value as value_a,
        b.value as value_b,
        case
            when a.config_id is null then 'only_in_b'
            when b.config_id is null then 'only_in_a'
            else 'changed'
        end as difference_kind,
        a.is_inherited as is_inherited_a,
        b.is_inherited as is_inherited_b,
        ({{ any_true_pair('a.is_flagged', 'b.is_flagged') }}) as is_flagged,
        pair_parameters.source_kind_a,
        pair_parameters.source_kind_b,
        pair_parameters.study_a,
        pair_parameters.study_b,
        a.config_id is not null and b.config_id is not null
            and not {{ null_safe_equal('trim(a.value)', 'trim(b.value)') }} as is_value_changed,
        a.config_id is null or b.config_id is null as is_one_sided
    from pair_parameters
    left join configs as a
        on a.config_id = pair_parameters.config_a and a.parameter = pair_parameters.parameter
    left join configs as b
        on b.config_id = pair_parameters.config_b and b.parameter = pair_parameters.parameter

),

final as (

    select
        config_a,
        config_b,
        parameter,
        value_a,
        value_b,
        difference_kind,
        is_inherited_a,
        is_inherited_b,
        is_flagged,
        source_kind_a,
        source_kind_b,
        study_a,
        study_b
    from compared
    where is_value_changed or is_one_sided

)

select * from final
