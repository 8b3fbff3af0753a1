-- Hosts from both worlds: the published studies' servers and the hosts named by run manifests.
-- A measured host seen in several runs is one row; disagreeing facts are flagged, not hidden.
-- Materialized as a table: several models and tests read it, a view would recompute the chain.
{{ config(materialized='table') }}

{#- the unioned shape, in output order; each branch below has some of these (macros/union_by_name.sql) -#}
{%- set host_columns = [
    ['host_id', 'string'], ['source_kind', 'string'], ['study_id', 'string'], ['host_role', 'string'],
    ['host_vendor_model', 'string'], ['host_cpu_model', 'string'], ['host_nominal_ghz', 'double'],
    ['host_measured_ghz', 'double'], ['host_sockets', 'bigint'], ['host_physical_cores', 'bigint'],
    ['host_logical_cpus', 'bigint'], ['host_ram_gib', 'double'], ['host_os', 'string'], ['host_kernel', 'string'],
    ['host_notes', 'string'], ['run_count', 'bigint'], ['has_conflicting_facts', 'boolean'], ['provenance', 'string']] %}

with published as (

    select * from {{ ref('stg_lake__published_hosts') }}

),

runs as (

    select * from {{ ref('int_runs_identified') }}
    where host_key is not null

),

measured as (

    select
        host_key as host_id,
        case when min(case when is_synthetic then 1 else 0 end) = 1 then 'synthetic' else 'measured' end
            as source_kind,
        max(host_vendor_model) as host_vendor_model,
        max(host_cpu_model) as host_cpu_model,
        max(host_nominal_ghz) as host_nominal_ghz,
        max(host_measured_ghz) as host_measured_ghz,
        max(host_sockets) as host_sockets,
        max(host_physical_cores) as host_physical_cores,
        max(host_logical_cpus) as host_logical_cpus,
        max(host_ram_gib) as host_ram_gib,
        max(host_os) as host_os,
        max(host_kernel) as host_kernel,
        count(*) as run_count,
        min(run_id) as first_run_id,
        (count(distinct host_cpu_model) > 1 or count(distinct host_logical_cpus) > 1
            or count(distinct host_nominal_ghz) > 1) as has_conflicting_facts
    from runs
    group by host_key

),

published_shaped as (

    select
        host_id,
        'published' as source_kind,
        study_id,
        host_role,
        host_vendor_model,
        host_cpu_model,
        host_nominal_ghz,
        host_sockets,
        host_physical_cores,
        host_logical_cpus,
        host_ram_gb as host_ram_gib,
        host_os,
        host_notes,
        0 as run_count,
        false as has_conflicting_facts,
        {{ dbt.concat(["study_id", "': hosts.csv line '", "cast(csv_line as " ~ dbt.type_string() ~ ")"]) }}
            as provenance
    from published

),

measured_shaped as (

    select
        measured.host_id,
        measured.source_kind,
        'system_under_test' as host_role,
        measured.host_vendor_model,
        measured.host_cpu_model,
        measured.host_nominal_ghz,
        measured.host_measured_ghz,
        measured.host_sockets,
        measured.host_physical_cores,
        measured.host_logical_cpus,
        measured.host_ram_gib,
        measured.host_os,
        measured.host_kernel,
        measured.run_count,
        measured.has_conflicting_facts,
        {{ dbt.concat(["'run manifest: '", "measured.first_run_id"]) }} as provenance
    from measured
    left join published on measured.host_id = published.host_id
    where published.host_id is null

),

unioned as (
    {{ union_by_name(host_columns, [
        ['published_shaped', ['host_id', 'source_kind', 'study_id', 'host_role', 'host_vendor_model', 'host_cpu_model',
                              'host_nominal_ghz', 'host_sockets', 'host_physical_cores', 'host_logical_cpus',
                              'host_ram_gib', 'host_os', 'host_notes', 'run_count', 'has_conflicting_facts',
                              'provenance']],
        ['measured_shaped', ['host_id', 'source_kind', 'host_role', 'host_vendor_model', 'host_cpu_model',
                             'host_nominal_ghz', 'host_measured_ghz', 'host_sockets', 'host_physical_cores',
                             'host_logical_cpus', 'host_ram_gib', 'host_os', 'host_kernel', 'run_count',
                             'has_conflicting_facts', 'provenance']]]) }}

),

final as (

    select * from unioned

)

select * from final
