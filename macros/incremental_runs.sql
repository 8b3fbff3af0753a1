{#- Incremental by run: the per-sample models rebuild only the runs whose raw files changed.

    Beside each such model a ledger, `intermediate.run_builds__<model>` (run_builds_relation()),
    lists the runs it was built for, each with the hash of its raw files (int_run_fingerprints)
    the build saw, a run that gave the model no row included; the per-sample models also store
    that `run_fingerprint` on every row. On an incremental build:
      1. pre-hook  delete_stale_runs(): delete the rows of the runs the ledger holds at another
                   fingerprint than the current one, or that vanished from the lake;
      2. model     where runs_to_build('x.run_id'): select only the runs not in the ledger at their
                   current fingerprint (new runs, changed runs, runs a partial `dbt run -s` left
                   behind), as a list of constants when there are few (DuckDB then skips the
                   Parquet row groups and files whose run_id statistics exclude them, instead of
                   reading every row of the lake to join it with a list), else as a subquery;
      3. strategy  var('run_incremental_strategy', 'delete+insert') with unique_key run_id
                   (on Spark: append, always with --full-refresh), so a retried build never doubles rows;
      4. post-hooks forget_stale_run_builds(), record_run_builds(): the ledger becomes the current
                   runs and fingerprints (on a full build: created from them).
    The ledger is what the model holds, kept in the same transaction: before it, steps 1 and 2
    compared every row's (run_id, run_fingerprint) with the current fingerprints, two scans of the
    whole model per update (10 million rows of fct_cpu_samples at 10,000 runs: 0.45 s of an
    update's 2.3 s over the twelve by-run models of then, growing with the archive; docs/performance.md, run 24).
    The predicate is wrapped in two comments, /*iopscope:runs_to_build column=... query=...*/ and
    /*iopscope:runs_to_build_end*/: a later update that replays this build's statements instead of
    running dbt (iopscope/update_replay.py) runs the query again and renders the predicate anew, as
    this macro would.
    A build that fails changes nothing (pipeline.staged_warehouse: the copy is renamed over the
    warehouse only when every model passed; a replay is one transaction), so the next build sees
    the same ledger and selects the same runs again: the models converge, never keep stale rows.
    Full builds (no table yet, or --full-refresh) skip steps 1 and 2 and select every run.

    The model must name its dependency for dbt's graph, since the ref here is rendered late:
        -- depends_on: {{ ref('int_run_fingerprints') }}
    A model whose every run's rows also depend on rows of other runs (int_fio_results_joined
    matches each job with the published standard profiles, rows of the published studies' run)
    names where those rows are: config(meta={'runs_read_by_every_run': ['stg_lake__published_io_profiles']}).
    Its runs are then fingerprinted as their own fingerprint plus those runs' fingerprints
    (current_run_fingerprints()): when the shared rows change, every run is stale and rebuilt.
-#}
{% macro runs_to_build(run_id_column) -%}
    {%- if not is_incremental() or not execute -%}
    (1 = 1)
    {%- elif model.resource_type == 'unit_test' -%}
    {#- a unit test's inputs are CTEs of its own query, which run_query cannot see -#}
    {{ run_id_column }} in ({{ runs_to_build_query() }})
    {%- else -%}
        {%- set query = runs_to_build_query() -%}
        {%- if '*/' in query or ' ' in run_id_column -%}
            {{ exceptions.raise_compiler_error("runs_to_build: cannot mark '" ~ run_id_column ~ "' for the update replay") }}
        {%- endif -%}
        {%- set runs = run_query(query).columns[0].values() -%}
    /*iopscope:runs_to_build column={{ run_id_column }} query={{ query }}*/
        {%- if runs | length == 0 %}
    (1 = 0)
        {%- else %}
    {{ listed_or_queried(run_id_column, runs, query) }}
        {%- endif %}
    /*iopscope:runs_to_build_end*/
    {%- endif -%}
{%- endmacro %}


{#- `column in (...)` for text values: the values as constants when there are few (at most
    var('runs_to_build_max_listed', 2000)), else the query that lists them. runs_to_build() and
    keys_to_build_filter() write their lists so; update_replay._render_runs does the same. -#}
{% macro listed_or_queried(column, values, query) -%}
    {%- if values | length <= var('runs_to_build_max_listed', 2000) -%}
    {{ column }} in (
        {%- for value in values -%}
        '{{ value | replace("'", "''") }}'{{ ", " if not loop.last }}
        {%- endfor -%}
    )
    {%- else -%}
    {{ column }} in ({{ query }})
    {%- endif -%}
{%- endmacro %}


{#- The runs an incremental build of this model selects: every current run that the ledger does
    not hold at its current fingerprint. A run that gave the model no row is in the ledger too, so
    it is not selected again and again (a 10,000-run lake has thousands of runs without histogram
    bins). -#}
{% macro runs_to_build_query() -%}
    select current_runs.run_id from {{ current_run_fingerprints() }} as current_runs
    where not exists (
        select 1 from {{ built_runs() }} as built
        where built.run_id = current_runs.run_id and built.run_fingerprint = current_runs.run_fingerprint
    )
{%- endmacro %}


{#- The runs as this model's ledger records them: (run_id, run_fingerprint), each run's own
    fingerprint from int_run_fingerprints; for a model configured with runs_read_by_every_run
    (a list of model names whose rows every run's rows are made with), followed by a digest of
    the fingerprints of the runs those rows belong to. -#}
{% macro current_run_fingerprints() -%}
    {%- set shared = (config.get('meta') or {}).get('runs_read_by_every_run') or [] -%}
    {%- if not shared -%}
    {{ return(ref('int_run_fingerprints')) }}
    {%- endif -%}
    {%- set fingerprints = ref('int_run_fingerprints') -%}
    {%- set shared_digest -%}
        (select coalesce({{ group_digest('shared_runs.run_fingerprint') }}, '')
         from {{ fingerprints }} as shared_runs
         where shared_runs.run_id in (
            {%- for name in shared %}
            select run_id from {{ ref(name) }}{{ ' union' if not loop.last }}
            {%- endfor %}
         ))
    {%- endset -%}
    {{ return('(select own_runs.run_id, ' ~ dbt.concat(['own_runs.run_fingerprint', "'+'", shared_digest | trim])
              ~ ' as run_fingerprint from ' ~ fingerprints ~ ' as own_runs)') }}
{%- endmacro %}


{#- The ledger of the model being built: intermediate.run_builds__<model>, in the schema of
    int_run_fingerprints (not beside a mart: the marts' schema is what the site and the SQL
    console list). -#}
{% macro run_builds_relation() -%}
    {%- set fingerprints = ref('int_run_fingerprints') -%}
    {{ return(api.Relation.create(database=fingerprints.database, schema=fingerprints.schema,
                                  identifier='run_builds__' ~ this.identifier)) }}
{%- endmacro %}


{#- The ledger when the warehouse holds it, else none (one that lost it: the build then deletes
    every row and builds every run, and makes the ledger again). -#}
{% macro existing_run_builds() -%}
    {%- set ledger = run_builds_relation() -%}
    {{ return(adapter.get_relation(database=ledger.database, schema=ledger.schema, identifier=ledger.identifier)) }}
{%- endmacro %}


{#- What runs_to_build compares with: the ledger, or no run without one. In a unit test, whose
    inputs are CTEs and which has no ledger, the runs and fingerprints of the rows given as `this`. -#}
{% macro built_runs() -%}
    {%- if model.resource_type == 'unit_test' -%}
        {{ return('(select distinct run_id, run_fingerprint from ' ~ this ~ ')') }}
    {%- endif -%}
    {%- set ledger = existing_run_builds() -%}
    {%- if ledger is none -%}
        {{ return('(select run_id, run_fingerprint from ' ~ ref('int_run_fingerprints') ~ ' where 1 = 0)') }}
    {%- endif -%}
    {{ return(ledger) }}
{%- endmacro %}


{#- Post-hooks: the ledger becomes the current runs at their current fingerprints, which is what
    the model now holds (steps 1-3 above). Two statements, each touching only the runs that
    changed: the ledger's stale entries go, the runs it lacks are added. On a full build, or
    without a ledger, it is made from the current runs. -#}
{% macro forget_stale_run_builds() -%}
    {{ return(adapter.dispatch('forget_stale_run_builds', 'iopscope')()) }}
{%- endmacro %}

{% macro record_run_builds() -%}
    {{ return(adapter.dispatch('record_run_builds', 'iopscope')()) }}
{%- endmacro %}

{% macro default__forget_stale_run_builds() -%}
    {%- set ledger = existing_run_builds() if execute and is_incremental() else none -%}
    {%- if ledger is not none -%}
    delete from {{ ledger }}
    where not exists (
        select 1 from {{ current_run_fingerprints() }} as current_runs
        where current_runs.run_id = {{ ledger }}.run_id and current_runs.run_fingerprint = {{ ledger }}.run_fingerprint
    )
    {%- else -%}
    select 1
    {%- endif -%}
{%- endmacro %}

{% macro default__record_run_builds() -%}
    {%- set ledger = existing_run_builds() if execute and is_incremental() else none -%}
    {%- if ledger is not none -%}
    insert into {{ ledger }} (run_id, run_fingerprint)
    select current_runs.run_id, current_runs.run_fingerprint from {{ current_run_fingerprints() }} as current_runs
    where not exists (
        select 1 from {{ ledger }} as built
        where built.run_id = current_runs.run_id and built.run_fingerprint = current_runs.run_fingerprint
    )
    {%- else -%}
    create or replace table {{ run_builds_relation() }} as
    select run_id, run_fingerprint from {{ current_run_fingerprints() }} as current_runs
    {%- endif -%}
{%- endmacro %}

{#- Spark rebuilds these models whole on every build (spark__delete_stale_runs): no ledger. -#}
{% macro spark__forget_stale_run_builds() -%}
    select 1
{%- endmacro %}

{% macro spark__record_run_builds() -%}
    select 1
{%- endmacro %}


{% macro delete_stale_runs() -%}
    {{ return(adapter.dispatch('delete_stale_runs', 'iopscope')()) }}
{%- endmacro %}


{#- Spark's Parquet tables cannot delete rows (that needs Delta or Iceberg, whose jars would be
    fetched from Maven): on Spark these models are rebuilt whole (`--full-refresh`, which
    `iopscope build --engine spark` always passes) and an incremental run stops here rather than
    keep stale rows beside new ones. -#}
{% macro spark__delete_stale_runs() -%}
    {%- if is_incremental() -%}
        {{ exceptions.raise_compiler_error("incremental-by-run models need --full-refresh on Spark (Parquet tables cannot delete stale runs): " ~ this) }}
    {%- endif -%}
    select 1
{%- endmacro %}


{% macro default__delete_stale_runs() -%}
    {%- if is_incremental() and execute -%}
        {%- set ledger = existing_run_builds() -%}
        {%- if ledger is none %}
    delete from {{ this }}
        {%- else %}
    delete from {{ this }}
    where run_id in (
        select built.run_id from {{ ledger }} as built
        where not exists (
            select 1 from {{ current_run_fingerprints() }} as current_runs
            where current_runs.run_id = built.run_id and current_runs.run_fingerprint = built.run_fingerprint
        )
    )
        {%- endif -%}
    {%- else -%}
    select 1
    {%- endif -%}
{%- endmacro %}
