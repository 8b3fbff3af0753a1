-- fio results (job entry x direction) with percentiles, the run's host and data device, and the
-- load profile the job ran: access pattern, read share and block size, matched to a published
-- standard profile (e.g. Fujitsu's "database" = random, 67% read, 8 KiB) when one fits.
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): a result is one job's of one
-- run, so an update joins only new and changed runs' jobs. The standard profiles are rows of the
-- published studies' run, which every run's rows are matched with (runs_read_by_every_run): when
-- they change, every run is rebuilt. As a table rebuilt whole it cost 0.09 s of an update at
-- 10,000 runs, and its share of the commit, for rows one new TPC-C run never changes.
{{ config(meta={'runs_read_by_every_run': ['stg_lake__published_io_profiles']}) }}
-- depends_on: {{ ref('int_run_fingerprints') }}

with jobs as (

    select * from {{ ref('stg_lake__fio_jobs') }}
    where {{ runs_to_build('run_id') }}

),

percentiles as (

    select * from {{ ref('int_fio_percentiles_pivoted') }}

),

runs as (

    select * from {{ ref('int_runs_identified') }}

),

standard_profiles as (

    select * from {{ ref('stg_lake__published_io_profiles') }}

),

profiled as (

    select
        jobs.*,
        case
            when jobs.rw like 'rand%' then 'random'
            when jobs.rw in ('read', 'write', 'rw', 'readwrite', 'trim') then 'sequential'
        end as access_pattern,
        case
            when jobs.rw in ('read', 'randread') then 100.0
            when jobs.rw in ('write', 'randwrite', 'trim', 'randtrim') then 0.0
            else coalesce(jobs.read_pct, 50.0)
        end as job_read_pct,
        cast(jobs.block_size_bytes as {{ type_double() }}) / 1024 as block_size_kib
    from jobs

),

joined as (

    select
        profiled.*,
        percentiles.clat_p50_us,
        percentiles.clat_p90_us,
        percentiles.clat_p95_us,
        percentiles.clat_p99_us,
        percentiles.clat_p99_9_us,
        percentiles.clat_p99_99_us,
        runs.source_kind,
        runs.run_kind,
        runs.is_synthetic,
        runs.host_key as host_id,
        runs.data_device_id as device_id,
        runs.data_device,
        runs.data_device_media,
        runs.data_device_count,
        runs.data_array_layout,
        runs.fio_measurement_area,
        {{ dbt.concat(["profiled.access_pattern", "'_r'", "cast(cast(profiled.job_read_pct as " ~ dbt.type_int() ~ ") as " ~ dbt.type_string() ~ ")",
                       "'_'", "cast(cast(profiled.block_size_kib as " ~ dbt.type_int() ~ ") as " ~ dbt.type_string() ~ ")", "'k'"]) }}
            as profile_id,
        standard_profiles.profile_id as standard_profile_id
    from profiled
    left join percentiles on profiled.fio_result_id = percentiles.fio_result_id
    left join runs on profiled.run_id = runs.run_id
    left join standard_profiles
        on  standard_profiles.access_pattern = profiled.access_pattern
        and standard_profiles.read_pct = profiled.job_read_pct
        and standard_profiles.block_size_kib = profiled.block_size_kib
        and standard_profiles.profile_id not like 'latency%'

),

final as (

    select * from joined

)

select * from final
