-- Completion-latency (clat) percentiles turned into one row per fio result with fixed columns.
-- fio prints percentiles as floats like 99.900000: compare with a tolerance, not equality.
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): a fio result is one file's
-- of one run, so an update pivots only new and changed runs' percentiles. As a view it read and
-- keyed (md5 per row) all 338,000 percentile rows at 10,000 runs on every update, for the
-- table int_fio_results_joined (docs/performance.md, run 24).
-- depends_on: {{ ref('int_run_fingerprints') }}
with percentiles as (

    select * from {{ ref('stg_lake__fio_percentiles') }}
    where latency_kind = 'clat' and {{ runs_to_build('run_id') }}

),

fingerprints as (

    select run_id, run_fingerprint from {{ ref('int_run_fingerprints') }}

),

pivoted as (

    select
        fio_result_id,
        min(run_id) as run_id,
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

    select
        pivoted.*,
        fingerprints.run_fingerprint
    from pivoted
    left join fingerprints on pivoted.run_id = fingerprints.run_id

)

select * from final
