-- fio json+ latency histograms: one row per result (job x direction), latency kind and bin,
-- with the cumulative share of IOs at or below the bin:
--   cumulative_pct = running sum of io_count (by bin) / total io_count x 100
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): a build reads only new
-- and changed runs.
-- depends_on: {{ ref('int_run_fingerprints') }}

with bins as (

    select * from {{ ref('stg_lake__fio_histogram_bins') }}
    where {{ runs_to_build('run_id') }}

),

results as (

    select * from {{ ref('int_fio_results_joined') }}

),

fingerprints as (

    select * from {{ ref('int_run_fingerprints') }}

),

cumulated as (

    select
        bins.*,
        sum(io_count) over (partition by fio_result_id, latency_kind order by bin_ns
                            rows between unbounded preceding and current row) as cumulative_io_count,
        sum(io_count) over (partition by fio_result_id, latency_kind) as total_io_count
    from bins

),

final as (

    select
        {{ surrogate_key(['cumulated.fio_result_id', 'cumulated.latency_kind', 'cumulated.bin_ns']) }} as fio_histogram_bin_id,
        cumulated.fio_result_id,
        cumulated.run_id,
        results.source_kind,
        false as is_approx,
        {{ dbt.concat(["'run '", "cumulated.run_id", "': '", "cumulated.source_path"]) }} as provenance,
        results.host_id,
        results.device_id,
        results.direction,
        results.profile_id,
        results.outstanding_ios,
        cumulated.latency_kind,
        cumulated.bin_ns,
        cast(cumulated.bin_ns as {{ type_double() }}) / 1000 as bin_us,
        cumulated.io_count,
        cumulated.cumulative_io_count,
        cumulated.total_io_count,
        {{ safe_divide('cumulated.cumulative_io_count * 100.0', 'cumulated.total_io_count') }} as cumulative_pct,
        fingerprints.run_fingerprint
    from cumulated
    left join results on cumulated.fio_result_id = results.fio_result_id
    left join fingerprints on cumulated.run_id = fingerprints.run_id

)

select * from final
