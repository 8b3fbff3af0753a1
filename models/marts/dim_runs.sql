-- One row per run: manifest facts, host and devices, how its files were read, and its system
-- metrics over the measured window (int_run_windows, int_runs_cpu_summarized, int_runs_iostat_summarized).
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): every column is the run's
-- own, joined and grouped by run_id, so an update builds only new and changed runs (each input
-- read for them alone) instead of all 10,000 rows of 52 columns (docs/performance.md, run 24).
-- depends_on: {{ ref('int_run_fingerprints') }}
with runs as (

    select * from {{ ref('int_runs_identified') }}
    where {{ runs_to_build('run_id') }}

),

files as (

    select * from {{ ref('stg_lake__ingest_files') }}
    where {{ runs_to_build('run_id') }}

),

errors as (

    select * from {{ ref('stg_lake__ingest_errors') }}
    where {{ runs_to_build('run_id') }}

),

windows as (

    select * from {{ ref('int_run_windows') }}
    where {{ runs_to_build('run_id') }}

),

cpu as (

    select * from {{ ref('int_runs_cpu_summarized') }}
    where {{ runs_to_build('run_id') }}

),

io as (

    select * from {{ ref('int_runs_iostat_summarized') }}
    where {{ runs_to_build('run_id') }}

),

file_counts as (

    select
        run_id,
        count(*) as file_count,
        sum(case when file_status in ('complete', 'incomplete', 'failed') then 1 else 0 end) as files_read,
        sum(coalesce(record_count, 0)) as record_count
    from files
    group by run_id

),

error_counts as (

    select
        run_id,
        sum(case when severity = 'error' then 1 else 0 end) as error_count,
        sum(case when severity = 'warning' then 1 else 0 end) as warning_count
    from errors
    group by run_id

),

final as (

    select
        runs.run_id,
        runs.source_kind,
        runs.is_synthetic,
        runs.has_manifest,
        runs.collection,
        runs.manifest_path,
        runs.study_id,
        runs.host_key as host_id,
        runs.tools,
        runs.started_at,
        runs.run_status,
        runs.description,
        runs.tags,
        runs.host_logical_cpus,
        runs.host_nominal_ghz,
        runs.db_server,
        runs.db_version,
        runs.db_config_id,
        runs.tpcc_warehouses,
        runs.tpcc_connections,
        runs.tpcc_buffer_pool_gib,
        runs.tpcc_page_size_kib,
        runs.fio_measurement_area,
        runs.data_device_id,
        runs.data_device,
        runs.data_device_media,
        runs.data_device_count,
        runs.data_array_layout,
        runs.log_device_id,
        runs.log_device,
        coalesce(file_counts.file_count, 0) as file_count,
        coalesce(file_counts.files_read, 0) as files_read,
        coalesce(file_counts.record_count, 0) as record_count,
        coalesce(error_counts.error_count, 0) as error_count,
        coalesce(error_counts.warning_count, 0) as warning_count,
        windows.window_start_at,
        windows.window_end_at,
        windows.window_basis,
        cpu.cpu_source,
        cpu.cpu_sample_count,
        cpu.cpu_user_sys_pct,
        cpu.cpu_busy_pct,
        cpu.cpu_iowait_pct,
        io.data_sample_count as iostat_sample_count,
        io.data_read_iops,
        io.data_write_iops,
        io.data_read_await_ms,
        io.data_write_await_ms,
        io.data_util_pct,
        io.log_write_iops,
        io.log_write_await_ms,
        {{ dbt.concat(["'run '", "runs.run_id", "' ('", "coalesce(runs.manifest_path, 'no manifest')", "')'"]) }}
            as provenance
    from runs
    left join file_counts on runs.run_id = file_counts.run_id
    left join error_counts on runs.run_id = error_counts.run_id
    left join windows on runs.run_id = windows.run_id
    left join cpu on runs.run_id = cpu.run_id
    left join io on runs.run_id = io.run_id

)

select * from final
