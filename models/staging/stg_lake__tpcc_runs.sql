-- TPC-C kit outputs (tpcc_start, go-tpc run, HammerDB log), one row per file: parameters, printed and
-- recomputed TpmC. Renames only; kit is filled for files read before the lake had the column
-- (only tpcc-mysql's parser existed then).
with source as (

    select * from {{ source('lake', 'tpcc_runs') }}

),

renamed as (

    select
        {{ surrogate_key(['source_path']) }} as tpcc_file_id,
        run_id,
        source_path,
        source_sha256,
        tool_version as tpcc_version,
        coalesce(kit, case when parser = 'go_tpc' then 'go-tpc' when parser = 'hammerdb' then 'hammerdb'
                      else 'tpcc-mysql' end) as kit,
        output_generation,
        output_variant,
        status as tpcc_status,
        last_phase,
        warehouses,
        connections,
        rampup_s as ramp_up_s,
        measure_s,
        report_interval_s,
        started_at as tpcc_started_at,
        interval_count,
        interval_new_order_count,
        interval_tpmc,
        measured_s,
        tpmc_printed,
        tpmc_recomputed,
        tpmc_mismatch as is_tpmc_mismatch,
        threads_stopped,
        mysql_error_count,
        summary_p95_ms,
        summary_p99_ms,
        summary_p999_ms,
        efficiency_pct,
        error_txn_count,
        engine_tpm_printed,
        engine_tpm_name
    from source

)

select * from renamed
