-- fio bw / iops / lat / clat / slat log samples. Latency us, bandwidth KiB/s. Renames only.
with source as (

    select * from {{ source('lake', 'fio_log_samples') }}

),

renamed as (

    select
        {{ surrogate_key(['source_path', 'line']) }} as fio_log_sample_id,
        run_id,
        source_path,
        log_kind,
        log_name,
        job_index,
        line as line_number,
        time_ms,
        value as sample_value,
        raw_unit,
        value_unit_assumed as is_unit_assumed,
        unit_evidence,
        direction,
        block_size_bytes,
        offset_bytes,
        priority
    from source

)

select * from renamed
