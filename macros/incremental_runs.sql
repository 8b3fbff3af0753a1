{#- Incremental by run: the per-sample models rebuild only the runs whose raw files changed.

    Every row of such a model carries `run_fingerprint`, the hash of its run's raw files
    (int_run_fingerprints) when the row was built. On an incremental build:
      1. pre-hook  delete_stale_runs(): delete the rows whose (run_id, run_fingerprint) is no
                   longer current: runs that vanished from the lake or whose files changed;
      2. model     where runs_to_build('x.run_id'): select only the runs with no row carrying
                   their current fingerprint (new runs, changed runs, runs with zero rows here);
      3. strategy  var('run_incremental_strategy', 'delete+insert') with unique_key run_id
                   (on Spark: append, always with --full-refresh), so a retried build never doubles rows.
    A model whose pre-hook ran but whose insert failed leaves its runs without current rows,
    so the next build selects them again: the model converges, never keeps stale rows.
    Full builds (no table yet, or --full-refresh) skip both and select every run.

    The model must name its dependency for dbt's graph, since the ref here is rendered late:
        -- depends_on: {{ ref('int_run_fingerprints') }}
-#}
{% macro runs_to_build(run_id_column) -%}
    {%- if is_incremental() -%}
    {{ run_id_column }} in (
        select current_runs.run_id
        from {{ ref('int_run_fingerprints') }} as current_runs
        where not exists (
            select 1 from {{ this }} as built
            where built.run_id = current_runs.run_id and built.run_fingerprint = current_runs.run_fingerprint
        )
    )
    {%- else -%}
    (1 = 1)
    {%- endif -%}
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
