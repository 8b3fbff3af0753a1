-- What each device delivers, one row per device x workload x storage setup x source: the best
-- figure of each, with single drives and multi-drive setups kept apart, so a top-N among single
-- drives is one WHERE clause (is_single_device) and never mixes in four-drive arrays.
--
--   workload_id   IO: the load profile (the standard profile a measured fio job matches, e.g.
--                 database = random 8 KiB 67 % read); 'not stated' where the source names none.
--                 TPC-C: 'tpcc (<kit>)'. Spec sheets: spec_random_read | spec_random_write |
--                 spec_sequential_read | spec_sequential_write.
--   setup         device_count x processes_per_device x array_layout (single, raid0_x4,
--                 independent_x4, partitions_x4, Mirrored Storage Spaces ...)
--   best figure   IO: the highest IOPS (MiB/s converted through the profile's block size where
--                 only that was printed); published table figures before prose figures (a
--                 hedged "about 193000" never outranks the table's 192881). TPC-C: the highest
--                 New-Order/min over every host, configuration and load of the kit (the row says
--                 which). Spec sheets: the data-sheet figure (decimal MB/s -> MiB/s).
-- Bounds (iops_low / _high ...) carry the printed precision; measured figures are exact.
-- Measured and published figures are separate rows (source_kind), never mixed.
--
-- Incremental by device (int_device_input_fingerprints, macros/incremental_keys.sql): a figure's
-- group (device_performance_id) is one device's, made from that device's fio jobs, TPC-C results,
-- published figures and dim_devices row alone, which the fingerprint hashes whole; an update
-- makes again only the rows of new, changed and vanished devices (0.06 s at 10,000 runs rebuilt whole).
{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='fail',
    pre_hook="{{ delete_rows_of_changed_keys(ref('int_device_input_fingerprints'), [[['device_id', 'device_id']]]) }}"
) }}
-- depends_on: {{ ref('int_device_input_fingerprints') }}

{#- the unioned shape, in output order; each branch below has some of these (macros/union_by_name.sql) -#}
{%- set performance_columns = [
    ['workload_kind', 'string'], ['workload_id', 'string'], ['source_kind', 'string'], ['figure_kind', 'string'],
    ['device_id', 'string'], ['device_count', 'bigint'], ['processes_per_device', 'int'], ['array_layout', 'string'],
    ['study_id', 'string'], ['host_id', 'string'], ['access_pattern', 'string'], ['read_pct', 'double'],
    ['block_size_kib', 'double'], ['outstanding_ios', 'bigint'], ['db_config_id', 'string'], ['connections', 'bigint'],
    ['iops', 'double'], ['iops_low', 'double'], ['iops_high', 'double'],
    ['mib_per_s', 'double'], ['mib_per_s_low', 'double'], ['mib_per_s_high', 'double'],
    ['new_order_tpm', 'double'], ['new_order_tpm_low', 'double'], ['new_order_tpm_high', 'double'],
    ['is_approx', 'boolean'], ['qualifier', 'string'], ['fact_id', 'string'], ['provenance', 'string'],
    ['rank_value', 'double']] %}
{%- set spec_figures = [
    ['spec_rand_read_iops', 'spec_random_read', 'random', 100, 'iops'],
    ['spec_rand_write_iops', 'spec_random_write', 'random', 0, 'iops'],
    ['spec_seq_read_mb_per_s', 'spec_sequential_read', 'sequential', 100, 'mb'],
    ['spec_seq_write_mb_per_s', 'spec_sequential_write', 'sequential', 0, 'mb']] %}
with devices as (

    select * from {{ ref('dim_devices') }} as all_devices
    where {{ keys_to_build_filter(ref('int_device_input_fingerprints'), [['all_devices.device_id', 'device_id']]) }}

),

published_io as (

    select * from {{ ref('int_published_io_results_described') }} as described
    where metric in ('iops', 'mb_per_s')
      and {{ keys_to_build_filter(ref('int_device_input_fingerprints'), [['described.device_id', 'device_id']]) }}

),

fio_jobs as (

    select * from {{ ref('int_fio_jobs_summarized') }} as summarized
    where device_id is not null and total_iops > 0
      and {{ keys_to_build_filter(ref('int_device_input_fingerprints'), [['summarized.device_id', 'device_id']]) }}

),

tpcc as (

    select * from {{ ref('int_tpcc_results_enriched') }} as enriched
    where device_id is not null and new_order_tpm is not null
      and {{ keys_to_build_filter(ref('int_device_input_fingerprints'), [['enriched.device_id', 'device_id']]) }}

),

published_shaped as (

    select
        'io' as workload_kind,
        coalesce(profile_id, 'not stated') as workload_id,
        'published' as source_kind,
        'result' as figure_kind,
        device_id,
        device_count,
        processes_per_device,
        array_layout,
        study_id,
        host_id,
        access_pattern,
        read_pct,
        block_size_kib,
        outstanding_ios,
        coalesce(iops, iops_from_mib_per_s) as iops,
        coalesce(iops_low, iops_from_mib_per_s_low) as iops_low,
        case when iops is not null then iops_high else iops_from_mib_per_s_high end as iops_high,
        coalesce(mib_per_s, mib_per_s_from_iops) as mib_per_s,
        coalesce(mib_per_s_low, mib_per_s_from_iops_low) as mib_per_s_low,
        case when mib_per_s is not null then mib_per_s_high else mib_per_s_from_iops_high end as mib_per_s_high,
        is_approx,
        qualifier,
        published_io_result_id as fact_id,
        {{ dbt.concat(["provenance", "case when qualifier is not null then " ~ dbt.concat(["' ['", "qualifier", "']'"]) ~ " else '' end"]) }}
            as provenance,
        -- IOPS, else MiB/s where no block size converts it (same profile: the same order)
        coalesce(iops, iops_from_mib_per_s, mib_per_s) as rank_value
    from published_io

),

measured_shaped as (

    select
        'io' as workload_kind,
        coalesce(standard_profile_id, profile_id) as workload_id,
        source_kind,
        'result' as figure_kind,
        device_id,
        data_device_count as device_count,
        cast(1 as {{ dbt.type_int() }}) as processes_per_device,
        array_layout,
        host_id,
        access_pattern,
        read_pct,
        block_size_kib,
        outstanding_ios,
        total_iops as iops,
        total_iops as iops_low,
        total_iops as iops_high,
        total_mib_per_s as mib_per_s,
        total_mib_per_s as mib_per_s_low,
        total_mib_per_s as mib_per_s_high,
        false as is_approx,
        fio_job_id as fact_id,
        {{ dbt.concat(["'run '", "run_id", "': '", "source_path"]) }} as provenance,
        total_iops as rank_value
    from fio_jobs

),

tpcc_shaped as (

    select
        'tpcc' as workload_kind,
        {{ dbt.concat(["'tpcc ('", "coalesce(kit, 'kit not stated')", "')'"]) }} as workload_id,
        source_kind,
        'result' as figure_kind,
        device_id,
        data_device_count as device_count,
        array_layout,
        study_id,
        host_id,
        db_config_id,
        connections,
        new_order_tpm,
        new_order_tpm_low,
        new_order_tpm_high,
        is_approx,
        qualifier,
        tpcc_result_id as fact_id,
        provenance,
        new_order_tpm as rank_value
    from tpcc

),

{%- set spec_branches = [] %}
{%- for column, workload, access, read_pct, unit in spec_figures %}
{%- set figure_columns = ['iops', 'iops_low', 'iops_high'] if unit == 'iops' else ['mib_per_s', 'mib_per_s_low', 'mib_per_s_high'] %}
{%- do spec_branches.append([workload ~ '_shaped', ['workload_kind', 'workload_id', 'source_kind', 'figure_kind', 'device_id',
                                                    'device_count', 'processes_per_device', 'array_layout', 'access_pattern',
                                                    'read_pct'] + figure_columns
                                                   + ['is_approx', 'fact_id', 'provenance', 'rank_value']]) %}

{{ workload }}_shaped as (

    select
        'spec_sheet' as workload_kind,
        '{{ workload }}' as workload_id,
        'published' as source_kind,
        'spec_sheet' as figure_kind,
        device_id,
        cast(1 as {{ dbt.type_int() }}) as device_count,
        cast(1 as {{ dbt.type_int() }}) as processes_per_device,
        'single' as array_layout,
        '{{ access }}' as access_pattern,
        cast({{ read_pct }} as {{ type_double() }}) as read_pct,
        {%- if unit == 'iops' %}
        cast({{ column }} as {{ type_double() }}) as iops,
        cast({{ column }} as {{ type_double() }}) as iops_low,
        cast({{ column }} as {{ type_double() }}) as iops_high,
        {%- else %}
        -- the data sheet's MB/s are decimal megabytes: 1 MB/s = 10^6 / 2^20 MiB/s
        {{ column }} * 1000000.0 / 1048576.0 as mib_per_s,
        {{ column }} * 1000000.0 / 1048576.0 as mib_per_s_low,
        {{ column }} * 1000000.0 / 1048576.0 as mib_per_s_high,
        {%- endif %}
        false as is_approx,
        device_id as fact_id,
        {{ dbt.concat(["'spec sheet (" ~ column ~ "): '", "coalesce(spec_source, 'not stated')"]) }} as provenance,
        cast({{ column }} as {{ type_double() }}) as rank_value
    from devices
    where {{ column }} is not null

),
{%- endfor %}

unioned as (
    {{ union_by_name(performance_columns, [
        ['published_shaped', ['workload_kind', 'workload_id', 'source_kind', 'figure_kind', 'device_id', 'device_count',
                              'processes_per_device', 'array_layout', 'study_id', 'host_id', 'access_pattern', 'read_pct',
                              'block_size_kib', 'outstanding_ios', 'iops', 'iops_low', 'iops_high', 'mib_per_s',
                              'mib_per_s_low', 'mib_per_s_high', 'is_approx', 'qualifier', 'fact_id', 'provenance',
                              'rank_value']],
        ['measured_shaped', ['workload_kind', 'workload_id', 'source_kind', 'figure_kind', 'device_id', 'device_count',
                             'processes_per_device', 'array_layout', 'host_id', 'access_pattern', 'read_pct',
                             'block_size_kib', 'outstanding_ios', 'iops', 'iops_low', 'iops_high', 'mib_per_s',
                             'mib_per_s_low', 'mib_per_s_high', 'is_approx', 'fact_id', 'provenance', 'rank_value']],
        ['tpcc_shaped', ['workload_kind', 'workload_id', 'source_kind', 'figure_kind', 'device_id', 'device_count',
                         'array_layout', 'study_id', 'host_id', 'db_config_id', 'connections', 'new_order_tpm',
                         'new_order_tpm_low', 'new_order_tpm_high', 'is_approx', 'qualifier', 'fact_id', 'provenance',
                         'rank_value']]] + spec_branches) }}

),

grouped as (

    select
        unioned.*,
        {{ surrogate_key(['device_id', 'workload_id', 'device_count', 'processes_per_device', 'array_layout',
                          'source_kind', 'figure_kind']) }} as device_performance_id
    from unioned

),

ranked as (

    select
        grouped.*,
        count(*) over (partition by device_performance_id) as figure_count,
        row_number() over (
            partition by device_performance_id
            order by case when is_approx then 1 else 0 end, rank_value desc, fact_id
        ) as rank_in_group
    from grouped

),

final as (

    select
        ranked.device_performance_id,
        ranked.device_id,
        devices.device_vendor,
        devices.device_model,
        devices.device_media,
        devices.device_interface,
        devices.device_capacity_gb,
        ranked.workload_kind,
        ranked.workload_id,
        ranked.access_pattern,
        ranked.read_pct,
        ranked.block_size_kib,
        ranked.source_kind,
        ranked.figure_kind,
        ranked.device_count,
        ranked.processes_per_device,
        ranked.array_layout,
        {{ layout_kind('ranked.array_layout') }} as layout_kind,
        (ranked.device_count = 1 and coalesce(ranked.processes_per_device, 1) = 1) as is_single_device,
        ranked.study_id,
        ranked.host_id,
        ranked.outstanding_ios,
        ranked.db_config_id,
        ranked.connections,
        ranked.iops,
        ranked.iops_low,
        ranked.iops_high,
        ranked.mib_per_s,
        ranked.mib_per_s_low,
        ranked.mib_per_s_high,
        ranked.new_order_tpm,
        ranked.new_order_tpm_low,
        ranked.new_order_tpm_high,
        {{ safe_divide('ranked.iops', 'ranked.device_count') }} as iops_per_device,
        ranked.is_approx,
        ranked.qualifier,
        ranked.figure_count,
        ranked.fact_id,
        ranked.provenance
    from ranked
    left join devices on ranked.device_id = devices.device_id
    where ranked.rank_in_group = 1

)

select * from final
