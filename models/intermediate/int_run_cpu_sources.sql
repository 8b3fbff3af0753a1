-- One row per run with CPU samples: the rank of its preferred CPU source (macros/cpu_sources.sql:
-- mpstat, then sar, collectl, iostat's avg-cpu block), which int_cpu_samples_windowed compares
-- each sample's source with.
-- A table incremental by run (dbt_project.yml, macros/incremental_runs.sql), not a CTE of that
-- view: the view's readers select a few runs, and the run filter does not reach an aggregate
-- joined to the samples (DuckDB then read run_id and source_block of every CPU sample in the
-- lake, twice per update); here an update reads only the new and changed runs.
-- depends_on: {{ ref('int_run_fingerprints') }}

with samples as (

    select * from {{ ref('stg_lake__cpu_samples') }}
    where {{ runs_to_build('run_id') }}

),

fingerprints as (

    select * from {{ ref('int_run_fingerprints') }}

),

ranked as (

    select
        run_id,
        min({{ cpu_source_rank('source_block') }}) as best_source_rank
    from samples
    group by run_id

),

final as (

    select
        ranked.run_id,
        ranked.best_source_rank,
        fingerprints.run_fingerprint
    from ranked
    left join fingerprints on ranked.run_id = fingerprints.run_id

)

select * from final
