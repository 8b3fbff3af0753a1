-- CPU samples with the run's measured window applied and the preferred source chosen.
--   is_in_window: not a since-boot average, and inside [window_start_at, window_end_at] when
--                 the run has a window and the sample a timestamp
--   is_preferred_source: the run's best CPU source (mpstat, then sar, collectl, iostat's avg-cpu
--                 block), so one run's CPU is never averaged over two tools' copies
-- A view, not a table: its two readers (fct_cpu_samples, int_runs_cpu_summarized) are
-- incremental by run and select from it only the runs they rebuild; the filter reaches the
-- samples' lake scan, since every join here is on run_id and no CTE is read twice (DuckDB
-- computes such a CTE whole first). As a table it wrote every CPU sample a second time (at
-- 10,000 runs 27 s, then 26 s for the mart, against 30 s for the mart alone from this view).
-- The run's best source comes from a small table incremental by run (int_run_cpu_sources): an
-- aggregate over the samples joined back to them is not reached by the run filter.

with samples as (

    select * from {{ ref('stg_lake__cpu_samples') }}

),

run_sources as (

    select * from {{ ref('int_run_cpu_sources') }}

),

windows as (

    select * from {{ ref('int_run_windows') }}

),

fingerprints as (

    select * from {{ ref('int_run_fingerprints') }}

),

ranked as (

    select
        samples.*,
        {{ cpu_source_rank('samples.source_block') }} as source_rank
    from samples

),

final as (

    select
        ranked.*,
        windows.window_basis,
        case
            when ranked.is_since_boot then false
            when windows.window_start_at is null or ranked.sampled_at is null then true
            else ranked.sampled_at > windows.window_start_at and ranked.sampled_at <= windows.window_end_at
        end as is_in_window,
        ranked.source_rank = run_sources.best_source_rank as is_preferred_source,
        fingerprints.run_fingerprint
    from ranked
    left join windows on ranked.run_id = windows.run_id
    left join run_sources on ranked.run_id = run_sources.run_id
    left join fingerprints on ranked.run_id = fingerprints.run_id

)

select * from final
