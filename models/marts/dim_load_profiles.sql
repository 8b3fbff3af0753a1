-- IO load profiles: the published standard profiles (Fujitsu) and every profile measured fio
-- jobs ran (access pattern, read share, block size), each linked to the standard one it equals.

{#- the mart's shape, in output order; each branch below has some of these (macros/union_by_name.sql) -#}
{%- set load_profile_columns = [
    ['profile_id', 'string'], ['source_kind', 'string'], ['profile_name', 'string'], ['access_pattern', 'string'],
    ['read_pct', 'double'], ['write_pct', 'double'], ['block_size_kib', 'double'], ['application', 'string'],
    ['standard_profile_id', 'string'], ['measured_job_count', 'bigint'], ['measured_run_count', 'bigint'],
    ['note', 'string'], ['provenance', 'string']] %}
with published as (

    select * from {{ ref('stg_lake__published_io_profiles') }}

),

fio as (

    select * from {{ ref('int_fio_results_joined') }}
    where profile_id is not null

),

measured as (

    select
        profile_id,
        min(access_pattern) as access_pattern,
        min(job_read_pct) as read_pct,
        min(block_size_kib) as block_size_kib,
        min(standard_profile_id) as standard_profile_id,
        count(distinct fio_job_id) as measured_job_count,
        count(distinct run_id) as measured_run_count,
        min(run_id) as first_run_id,
        case when min(case when source_kind = 'synthetic' then 1 else 0 end) = 1 then 'synthetic' else 'measured' end
            as source_kind
    from fio
    group by profile_id

),

published_shaped as (

    select
        published.profile_id,
        'published' as source_kind,
        published.profile_name,
        published.access_pattern,
        published.read_pct,
        published.write_pct,
        published.block_size_kib,
        published.application,
        published.profile_id as standard_profile_id,
        coalesce(measured.measured_job_count, 0) as measured_job_count,
        coalesce(measured.measured_run_count, 0) as measured_run_count,
        published.note,
        published.citation as provenance
    from published
    left join measured on published.profile_id = measured.profile_id

),

measured_shaped as (

    select
        measured.profile_id,
        measured.source_kind,
        {{ dbt.concat(["measured.access_pattern", "', '", "cast(cast(measured.read_pct as " ~ dbt.type_int() ~ ") as " ~ dbt.type_string() ~ ")",
                       "'% read, '", "cast(measured.block_size_kib as " ~ dbt.type_string() ~ ")", "' KiB'"]) }} as profile_name,
        measured.access_pattern,
        measured.read_pct,
        100 - measured.read_pct as write_pct,
        measured.block_size_kib,
        measured.standard_profile_id,
        measured.measured_job_count,
        measured.measured_run_count,
        {{ dbt.concat(["'fio jobs, first in run '", "measured.first_run_id"]) }} as provenance
    from measured
    left join published on measured.profile_id = published.profile_id
    where published.profile_id is null

),

final as (
    {{ union_by_name(load_profile_columns, [
        ['published_shaped', load_profile_columns | map(attribute=0) | list],
        ['measured_shaped', ['profile_id', 'source_kind', 'profile_name', 'access_pattern', 'read_pct', 'write_pct',
                             'block_size_kib', 'standard_profile_id', 'measured_job_count', 'measured_run_count',
                             'provenance']]]) }}

)

select * from final
