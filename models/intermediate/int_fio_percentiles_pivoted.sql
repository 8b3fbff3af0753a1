-- Completion-latency (clat) percentiles turned into one row per fio result with fixed columns.
-- fio prints percentiles as floats like 99.900000: compare with a tolerance, not equality.
with percentiles as (

    select * from {{ ref('stg_lake__fio_percentiles') }}
    where latency_kind = 'clat'

),

pivoted as (

    select
        fio_result_id,
        max(case when abs(percentile - 50) < 0.0001 then latency_us end) as clat_p50_us,
        max(case when abs(percentile - 90) < 0.0001 then latency_us end) as clat_p90_us,
        max(case when abs(percentile - 95) < 0.0001 then latency_us end) as clat_p95_us,
        max(case when abs(percentile - 99) < 0.0001 then latency_us end) as clat_p99_us,
        max(case when abs(percentile - 99.9) < 0.0001 then latency_us end) as clat_p99_9_us,
        max(case when abs(percentile - 99.99) < 0.0001 then latency_us end) as clat_p99_99_us
    from percentiles
    group by fio_result_id

),

final as (

    select * from pivoted

)

select * from final
