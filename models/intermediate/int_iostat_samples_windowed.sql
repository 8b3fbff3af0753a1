-- iostat device samples with the run's measured window applied and the device's role in the
-- run (data / log / data+log / other) from the manifest, matched on the kernel name.
-- A view, not a table: its two readers (fct_iostat_device_samples, int_runs_iostat_summarized)
-- are incremental by run and select from it only the runs they rebuild; the filter reaches the
-- samples' lake scan (every join here is on run_id; the runs' devices, one row per device of a
-- run, are grouped whole: ~20,000 rows at 10,000 runs). As a table it wrote every sample a
-- second time (at 10,000 runs 7.0 s, then 7.9 s for the mart, against 7.8 s from this view).

with samples as (

    select * from {{ ref('stg_lake__iostat_device_samples') }}

),

windows as (

    select * from {{ ref('int_run_windows') }}

),

fingerprints as (

    select * from {{ ref('int_run_fingerprints') }}

),

devices as (

    select
        run_id,
        kernel_name,
        min(device_role) as device_role,
        min({{ measured_device_key('run_id', 'device_id', 'kernel_name', 'device_model') }}) as device_id
    from {{ ref('stg_lake__run_devices') }}
    where kernel_name is not null
    group by run_id, kernel_name

),

final as (

    select
        samples.*,
        devices.device_role,
        devices.device_id,
        windows.window_basis,
        case
            when samples.is_since_boot then false
            when windows.window_start_at is null or samples.sampled_at is null then true
            else samples.sampled_at > windows.window_start_at and samples.sampled_at <= windows.window_end_at
        end as is_in_window,
        fingerprints.run_fingerprint
    from samples
    left join windows on samples.run_id = windows.run_id
    left join fingerprints on samples.run_id = fingerprints.run_id
    left join devices on samples.run_id = devices.run_id and samples.kernel_name = devices.kernel_name

)

select * from final
