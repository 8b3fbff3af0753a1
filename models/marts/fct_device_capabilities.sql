-- What a device can do, for sizing: per device, load profile and array, the highest measured
-- IOPS (and the MiB/s of the same job) whose latency stays within each target of
-- var('capability_latency_targets_us'), on two bases (worst-direction p99 completion latency;
-- IO-weighted mean total latency), with the fio job that proves it. Also listed, labelled:
--   measured_maximum   the highest measured load of the profile, whatever its latency
--   published_maximum  published maxima over all loads (Fujitsu's comparison table and prose)
--   spec_sheet         data-sheet figures (dim_devices); never measured, never a latency
-- Derived: usd_per_iops = price / iops; iops_per_gb = iops / capacity; usd_per_gb = price / capacity.
--
-- Incremental by device (int_device_input_fingerprints, macros/incremental_keys.sql): every row is
-- one device's, made from that device's fio results, published figures and dim_devices row alone
-- (the rankings partition by device), which the fingerprint hashes whole; an update deletes the
-- rows of new, changed and vanished devices and makes only theirs again. Rebuilt whole it took
-- 0.17 s of an update at 10,000 runs (157,000 job x target rows ranked), and a share of the commit.
{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='fail',
    pre_hook="{{ delete_rows_of_changed_keys(ref('int_device_input_fingerprints'), [[['device_id', 'device_id']]]) }}"
) }}
-- depends_on: {{ ref('int_device_input_fingerprints') }}

{#- the unioned shape, in output order; each branch below has some of these (macros/union_by_name.sql) -#}
{%- set capability_columns = [
    ['capability_kind', 'string'], ['source_kind', 'string'], ['device_id', 'string'], ['profile_id', 'string'],
    ['standard_profile_id', 'string'], ['access_pattern', 'string'], ['read_pct', 'double'], ['block_size_kib', 'double'],
    ['data_device_count', 'bigint'], ['array_layout', 'string'], ['latency_basis', 'string'],
    ['latency_target_us', 'double'], ['iops', 'double'], ['mib_per_s', 'double'], ['latency_us', 'double'],
    ['worst_clat_p99_us', 'double'], ['mean_lat_us', 'double'], ['outstanding_ios', 'bigint'],
    ['measurement_area', 'string'], ['host_id', 'string'], ['run_id', 'string'], ['fio_job_id', 'string'],
    ['published_io_result_id', 'string'], ['is_approx', 'boolean'], ['provenance', 'string']] %}
{#- a measured row has every column but the published result's id (and a maximum, the target) -#}
{%- set measured_columns = capability_columns | map(attribute=0) | reject('equalto', 'published_io_result_id') | list %}
{%- set spec_figures = [
    ['spec_rand_read_iops', 'random', 100, 'iops'],
    ['spec_rand_write_iops', 'random', 0, 'iops'],
    ['spec_seq_read_mb_per_s', 'sequential', 100, 'mb'],
    ['spec_seq_write_mb_per_s', 'sequential', 0, 'mb']] %}
with jobs as (

    select * from {{ ref('int_fio_jobs_summarized') }} as summarized
    where device_id is not null and profile_id is not null and total_iops > 0
      and {{ keys_to_build_filter(ref('int_device_input_fingerprints'), [['summarized.device_id', 'device_id']]) }}

),

published as (

    select * from {{ ref('fct_published_io_results') }} as published_results
    where is_over_all_loads and metric in ('iops', 'mb_per_s')
      and {{ keys_to_build_filter(ref('int_device_input_fingerprints'), [['published_results.device_id', 'device_id']]) }}

),

devices as (

    select * from {{ ref('dim_devices') }} as all_devices
    where {{ keys_to_build_filter(ref('int_device_input_fingerprints'), [['all_devices.device_id', 'device_id']]) }}

),

targets as (
    {%- for target in var('capability_latency_targets_us') %}
    select cast({{ target }} as {{ type_double() }}) as latency_target_us
    {%- if not loop.last %} union all{% endif %}
    {%- endfor %}

),

bases as (

    select 'p99' as latency_basis
    union all
    select 'mean' as latency_basis

),

job_latencies as (

    select
        jobs.*,
        bases.latency_basis,
        case bases.latency_basis when 'p99' then jobs.worst_clat_p99_us else jobs.mean_lat_us end as latency_us
    from jobs
    cross join bases

),

within_target as (

    select
        job_latencies.*,
        targets.latency_target_us,
        row_number() over (
            partition by device_id, profile_id, data_device_count, array_layout, latency_basis, latency_target_us
            order by total_iops desc, fio_job_id
        ) as rank_in_group
    from job_latencies
    inner join targets on job_latencies.latency_us <= targets.latency_target_us

),

maxima as (

    select
        job_latencies.*,
        row_number() over (
            partition by device_id, profile_id, data_device_count, array_layout, latency_basis
            order by total_iops desc, fio_job_id
        ) as rank_in_group
    from job_latencies

),

measured_within_latency as (

    select 'measured_within_latency' as capability_kind, source_kind, device_id, profile_id, standard_profile_id,
           access_pattern, read_pct, block_size_kib, data_device_count, array_layout, latency_basis,
           latency_target_us, total_iops as iops, total_mib_per_s as mib_per_s, latency_us, worst_clat_p99_us,
           mean_lat_us, outstanding_ios, measurement_area, host_id, run_id, fio_job_id, false as is_approx,
           {{ dbt.concat(["'run '", "run_id", "': '", "source_path"]) }} as provenance
    from within_target
    where rank_in_group = 1

),

measured_maximum as (

    select 'measured_maximum' as capability_kind, source_kind, device_id, profile_id, standard_profile_id,
           access_pattern, read_pct, block_size_kib, data_device_count, array_layout, latency_basis,
           total_iops as iops, total_mib_per_s as mib_per_s, latency_us, worst_clat_p99_us,
           mean_lat_us, outstanding_ios, measurement_area, host_id, run_id, fio_job_id, false as is_approx,
           {{ dbt.concat(["'run '", "run_id", "': '", "source_path"]) }} as provenance
    from maxima
    where rank_in_group = 1

),

published_shaped as (

    select 'published_maximum' as capability_kind, 'published' as source_kind, device_id, profile_id,
           profile_id as standard_profile_id, access_pattern, read_pct, block_size_kib, array_layout,
           coalesce(iops, iops_from_mib_per_s) as iops, coalesce(mib_per_s, mib_per_s_from_iops) as mib_per_s,
           outstanding_ios, measurement_area, host_id, run_id, published_io_result_id, is_approx,
           {{ dbt.concat(["provenance", "case when qualifier is not null then " ~ dbt.concat(["' ['", "qualifier", "']'"]) ~ " else '' end"]) }}
               as provenance
    from published

),

{%- set spec_branches = [] %}
{%- for column, access, read_pct, unit in spec_figures %}
{%- do spec_branches.append(['spec_' ~ column, ['capability_kind', 'source_kind', 'device_id', 'access_pattern', 'read_pct',
                                                'iops' if unit == 'iops' else 'mib_per_s', 'is_approx', 'provenance']]) %}

spec_{{ column }} as (

    select 'spec_sheet' as capability_kind, 'published' as source_kind, device_id,
           '{{ access }}' as access_pattern, cast({{ read_pct }} as {{ type_double() }}) as read_pct,
           {%- if unit == 'iops' %}
           cast({{ column }} as {{ type_double() }}) as iops,
           {%- else %}
           -- the data sheet's MB/s are decimal megabytes: 1 MB/s = 10^6 / 2^20 MiB/s
           {{ column }} * 1000000.0 / 1048576.0 as mib_per_s,
           {%- endif %}
           false as is_approx,
           {{ dbt.concat(["'spec sheet (" ~ column ~ "): '", "spec_source"]) }} as provenance
    from devices
    where {{ column }} is not null

),
{%- endfor %}

unioned as (
    {{ union_by_name(capability_columns, [
        ['measured_within_latency', measured_columns],
        ['measured_maximum', measured_columns | reject('equalto', 'latency_target_us') | list],
        ['published_shaped', ['capability_kind', 'source_kind', 'device_id', 'profile_id', 'standard_profile_id',
                              'access_pattern', 'read_pct', 'block_size_kib', 'array_layout', 'iops', 'mib_per_s',
                              'outstanding_ios', 'measurement_area', 'host_id', 'run_id', 'published_io_result_id',
                              'is_approx', 'provenance']]] + spec_branches) }}

),

final as (

    select
        {{ surrogate_key(['unioned.capability_kind', 'unioned.device_id', 'unioned.profile_id', 'unioned.access_pattern',
                          'unioned.read_pct', 'unioned.data_device_count', 'unioned.array_layout', 'unioned.latency_basis',
                          'unioned.latency_target_us', 'unioned.published_io_result_id', 'unioned.provenance']) }}
            as device_capability_id,
        unioned.*,
        capability_kind = 'spec_sheet' as is_spec_sheet,
        {{ safe_divide('devices.price_usd', 'unioned.iops') }} as usd_per_iops,
        {{ safe_divide('unioned.iops', 'devices.device_capacity_gb') }} as iops_per_gb,
        devices.usd_per_gb
    from unioned
    left join devices on unioned.device_id = devices.device_id

)

select * from final
