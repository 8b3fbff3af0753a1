-- CPU samples with the run's measured window applied and the preferred source chosen.
--   is_in_window: not a since-boot average, and inside [window_start_at, window_end_at] when
--                 the run has a window and the sample a timestamp
--   is_preferred_source: the run's best CPU source (mpstat, then sar, collectl, iostat's avg-cpu
--                 block), so one run's CPU is never averaged over two tools' copies
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): a build reads only new
-- and changed runs.
-- depends_on: {{ ref('int_run_fingerprints') }}

with samples as (

    select * from {{ ref('stg_lake__cpu_samples') }}
    where {{ runs_to_build('run_id') }}

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
        case samples.source_block
            when 'mpstat' then 1 when 'sar' then 2 when 'collectl' then 3 when 'iostat-avg-cpu' then 4 else 5
        end as source_rank
    from samples

),

best as (

    select run_id, min(source_rank) as best_rank
    from ranked
    group by run_id

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
        ranked.source_rank = best.best_rank as is_preferred_source,
        fingerprints.run_fingerprint
    from ranked
    left join windows on ranked.run_id = windows.run_id
    left join best on ranked.run_id = best.run_id
    left join fingerprints on ranked.run_id = fingerprints.run_id

)

select * from final
