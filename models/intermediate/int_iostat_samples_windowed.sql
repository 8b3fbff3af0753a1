-- iostat device samples with the run's measured window applied and the device's role in the
-- run (data / log / data+log / other) from the manifest, matched on the kernel name.
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): a build reads only new
-- and changed runs.
-- depends_on: {{ ref('int_run_fingerprints') }}

with samples as (

    select * from {{ ref('stg_lake__iostat_device_samples') }}
    where {{ runs_to_build('run_id') }}

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
