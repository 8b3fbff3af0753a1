-- Database configurations in long form: one row per configuration and parameter. Published
-- configurations come with inherited values materialized (is_inherited says which); measured
-- ones come from run manifests ([db.parameters]), keyed by the manifest's db config_id or
-- 'run:<run_id>'. A published configuration id wins over a manifest reusing it.

{#- the mart's shape, in output order; each branch below has some of these (macros/union_by_name.sql) -#}
{%- set db_config_columns = [
    ['config_id', 'string'], ['parameter', 'string'], ['value', 'string'], ['source_kind', 'string'],
    ['study_id', 'string'], ['db_server', 'string'], ['db_version', 'string'], ['is_inherited', 'boolean'],
    ['inherited_from', 'string'], ['config_section', 'string'], ['is_flagged', 'boolean'], ['note', 'string'],
    ['has_conflicting_values', 'boolean'], ['run_count', 'bigint'], ['provenance', 'string']] %}
with published as (

    select * from {{ ref('stg_lake__published_db_configs') }}

),

run_parameters as (

    select * from {{ ref('stg_lake__run_db_parameters') }}

),

runs as (

    select * from {{ ref('int_runs_identified') }}

),

measured_rows as (

    select
        coalesce(runs.db_config_id, {{ dbt.concat(["'run:'", "run_parameters.run_id"]) }}) as db_config_id,
        run_parameters.run_id,
        run_parameters.parameter,
        run_parameters.parameter_value,
        runs.db_server,
        runs.db_version,
        runs.source_kind
    from run_parameters
    left join runs on run_parameters.run_id = runs.run_id

),

measured as (

    select
        db_config_id,
        parameter,
        min(parameter_value) as parameter_value,
        count(distinct parameter_value) > 1 as has_conflicting_values,
        min(db_server) as db_server,
        min(db_version) as db_version,
        min(source_kind) as source_kind,
        count(distinct run_id) as run_count,
        min(run_id) as first_run_id
    from measured_rows
    group by db_config_id, parameter

),

published_shaped as (

    select
        db_config_id as config_id,
        parameter,
        parameter_value as value,
        'published' as source_kind,
        study_id,
        db_server,
        db_version,
        is_inherited,
        inherited_from,
        config_section,
        (note like '%AMBIGUOUS%' or note like '%CONFLICT%') as is_flagged,
        note,
        false as has_conflicting_values,
        0 as run_count,
        {{ dbt.concat(["study_id", "': '", "citation"]) }} as provenance
    from published

),

measured_shaped as (

    select
        measured.db_config_id as config_id,
        measured.parameter,
        measured.parameter_value as value,
        measured.source_kind,
        measured.db_server,
        measured.db_version,
        false as is_inherited,
        measured.has_conflicting_values as is_flagged,
        measured.has_conflicting_values,
        measured.run_count,
        {{ dbt.concat(["'run manifest: '", "measured.first_run_id"]) }} as provenance
    from measured
    where measured.db_config_id not in (select db_config_id from published)

),

final as (
    {{ union_by_name(db_config_columns, [
        ['published_shaped', db_config_columns | map(attribute=0) | list],
        ['measured_shaped', ['config_id', 'parameter', 'value', 'source_kind', 'db_server', 'db_version', 'is_inherited',
                             'is_flagged', 'has_conflicting_values', 'run_count', 'provenance']]]) }}

)

select * from final
