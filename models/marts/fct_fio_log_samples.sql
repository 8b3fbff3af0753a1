-- fio log samples (bw / iops / lat / clat / slat logs), one row per logged sample, with the
-- run's device. Latency samples in microseconds, bandwidth in KiB/s, iops in IO/s.
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): a build reads only new
-- and changed runs (rebuilt whole, 331,005 rows at 10,000 runs, it was 1.8-3.5 s of every update).
-- depends_on: {{ ref('int_run_fingerprints') }}

with samples as (

    select * from {{ ref('stg_lake__fio_log_samples') }}
    where {{ runs_to_build('run_id') }}

),

runs as (

    select * from {{ ref('int_runs_identified') }}

),

fingerprints as (

    select * from {{ ref('int_run_fingerprints') }}

),

final as (

    select
        samples.fio_log_sample_id,
        samples.run_id,
        runs.source_kind,
        false as is_approx,
        {{ dbt.concat(["'run '", "samples.run_id", "': '", "samples.source_path", "' line '",
                       "cast(samples.line_number as " ~ dbt.type_string() ~ ")"]) }} as provenance,
        runs.host_key as host_id,
        runs.data_device_id as device_id,
        samples.source_path,
        samples.log_kind,
        samples.log_name,
        samples.job_index,
        samples.line_number,
        samples.time_ms,
        cast(samples.time_ms as {{ type_double() }}) / 1000 as time_s,
        samples.sample_value,
        case when samples.log_kind in ('lat', 'clat', 'slat') then samples.sample_value end as latency_us,
        case when samples.log_kind = 'bw' then samples.sample_value end as bw_kib_per_s,
        case when samples.log_kind = 'iops' then samples.sample_value end as iops,
        samples.raw_unit,
        samples.is_unit_assumed,
        samples.unit_evidence,
        samples.direction,
        samples.block_size_bytes,
        samples.offset_bytes,
        samples.priority,
        fingerprints.run_fingerprint
    from samples
    left join runs on samples.run_id = runs.run_id
    left join fingerprints on samples.run_id = fingerprints.run_id

)

select * from final
