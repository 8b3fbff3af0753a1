-- Per run: IO rates and latencies of the data and the log device(s) over the measured window
-- (since-boot reports excluded), the roles coming from the manifest.
--   <role>_read_iops / <role>_write_iops: mean r/s, w/s, summed over the role's devices
--   <role>_read_await_ms / _write_await_ms: request-weighted mean await
--       = sum(r/s x r_await) / sum(r/s)  (falls back to the legacy combined await)
-- A data+log device counts for both roles.
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): a build summarises only the
-- samples of new and changed runs.
-- depends_on: {{ ref('int_run_fingerprints') }}
with samples as (

    select * from {{ ref('int_iostat_samples_windowed') }}
    where is_in_window and device_role is not null and not is_group and {{ runs_to_build('run_id') }}

),

fingerprints as (

    select * from {{ ref('int_run_fingerprints') }}

),

by_role as (

    select 'data' as role_bucket, samples.* from samples where device_role in ('data', 'data+log')
    union all
    select 'log' as role_bucket, samples.* from samples where device_role in ('log', 'data+log')

),

per_device as (

    select
        run_id,
        role_bucket,
        kernel_name,
        count(*) as sample_count,
        {{ stable_avg("read_iops") }} as read_iops,
        {{ stable_avg("write_iops") }} as write_iops,
        {{ stable_sum("read_iops * coalesce(read_await_ms, await_ms)") }} as read_await_weight,
        {{ stable_sum("case when coalesce(read_await_ms, await_ms) is not null then read_iops end") }} as read_weight,
        {{ stable_sum("write_iops * coalesce(write_await_ms, await_ms)") }} as write_await_weight,
        {{ stable_sum("case when coalesce(write_await_ms, await_ms) is not null then write_iops end") }} as write_weight,
        {{ stable_avg("util_pct") }} as util_pct
    from by_role
    group by run_id, role_bucket, kernel_name

),

per_role as (

    select
        run_id,
        role_bucket,
        min(sample_count) as sample_count,
        {{ stable_sum("read_iops") }} as read_iops,
        {{ stable_sum("write_iops") }} as write_iops,
        {{ safe_divide(stable_sum("read_await_weight"), stable_sum("read_weight")) }} as read_await_ms,
        {{ safe_divide(stable_sum("write_await_weight"), stable_sum("write_weight")) }} as write_await_ms,
        max(util_pct) as max_util_pct
    from per_device
    group by run_id, role_bucket

),

by_run as (

    select
        run_id,
        max(case when role_bucket = 'data' then sample_count end) as data_sample_count,
        max(case when role_bucket = 'data' then read_iops end) as data_read_iops,
        max(case when role_bucket = 'data' then write_iops end) as data_write_iops,
        max(case when role_bucket = 'data' then read_await_ms end) as data_read_await_ms,
        max(case when role_bucket = 'data' then write_await_ms end) as data_write_await_ms,
        max(case when role_bucket = 'data' then max_util_pct end) as data_util_pct,
        max(case when role_bucket = 'log' then sample_count end) as log_sample_count,
        max(case when role_bucket = 'log' then write_iops end) as log_write_iops,
        max(case when role_bucket = 'log' then write_await_ms end) as log_write_await_ms,
        max(case when role_bucket = 'log' then max_util_pct end) as log_util_pct
    from per_role
    group by run_id

),

final as (

    select
        by_run.*,
        fingerprints.run_fingerprint
    from by_run
    left join fingerprints on by_run.run_id = fingerprints.run_id

)

select * from final
