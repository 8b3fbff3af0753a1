{#- Incremental by run: the per-sample models rebuild only the runs whose raw files changed.

    Every row of such a model carries `run_fingerprint`, the hash of its run's raw files
    (int_run_fingerprints) when the row was built. On an incremental build:
      1. pre-hook  delete_stale_runs(): delete the rows whose (run_id, run_fingerprint) is no
                   longer current: runs that vanished from the lake or whose files changed;
      2. model     where runs_to_build('x.run_id'): select only new and changed runs, as a list of
                   constants when there are few (DuckDB then skips the Parquet row groups and
                   files whose run_id statistics exclude them, instead of reading every row of
                   the lake to join it with a list), else as a subquery;
      3. strategy  var('run_incremental_strategy', 'delete+insert') with unique_key run_id
                   (on Spark: append, always with --full-refresh), so a retried build never doubles rows.
    The predicate is wrapped in two comments, /*iopscope:runs_to_build column=... query=...*/ and
    /*iopscope:runs_to_build_end*/: a later update that replays this build's statements instead of
    running dbt (iopscope/update_replay.py) runs the query again and renders the predicate anew, as
    this macro would.
    A build that fails changes nothing (pipeline.staged_warehouse: the copy is renamed over the
    warehouse only when every model passed), so the next build sees the same previous
    fingerprints and selects the same runs again: the models converge, never keep stale rows.
    Full builds (no table yet, or --full-refresh) skip both and select every run.

    The model must name its dependency for dbt's graph, since the ref here is rendered late:
        -- depends_on: {{ ref('int_run_fingerprints') }}
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
        {%- elif runs | length <= var('runs_to_build_max_listed', 2000) %}
    {{ run_id_column }} in (
            {%- for run in runs -%}
        '{{ run | replace("'", "''") }}'{{ ", " if not loop.last }}
            {%- endfor -%}
    )
        {%- else %}
    {{ run_id_column }} in ({{ query }})
        {%- endif %}
    /*iopscope:runs_to_build_end*/
    {%- endif -%}
{%- endmacro %}


{#- The runs an incremental build of this model selects: new and changed runs (flagged by
    int_run_fingerprints, which compares itself with the previous build's copy), and runs whose
    rows here carry another fingerprint (a model left behind by a partial `dbt run -s`). A run
    with no row here is not selected again and again: a 10,000-run lake has thousands of runs
    without histogram bins. -#}
{% macro runs_to_build_query() -%}
    select run_id from {{ ref('int_run_fingerprints') }} where is_new_or_changed
    union
    select distinct built.run_id from {{ this }} as built
    where not exists (
        select 1 from {{ ref('int_run_fingerprints') }} as current_runs
        where current_runs.run_id = built.run_id and current_runs.run_fingerprint = built.run_fingerprint
    )
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
    {%- if is_incremental() -%}
    delete from {{ this }}
    where not exists (
        select 1 from {{ ref('int_run_fingerprints') }} as current_runs
        where current_runs.run_id = {{ this }}.run_id and current_runs.run_fingerprint = {{ this }}.run_fingerprint
    )
    {%- else -%}
    select 1
    {%- endif -%}
{%- endmacro %}
