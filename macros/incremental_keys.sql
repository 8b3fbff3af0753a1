{#- Incremental by key: models over every run whose rows each belong to a few keys (a database
    configuration, a comparison group), rebuilt only for the keys whose inputs changed.

    A key's inputs are fingerprinted by a small table model (int_db_config_fingerprints,
    int_device_fingerprints, int_device_input_fingerprints): one row per key, `<key columns>, key_fingerprint`, and
    `is_new_or_changed` = the key has no row with that fingerprint in the previous build of the
    same table (the warehouse copy an update starts from; true for every key in a full build), as
    int_run_fingerprints does for runs. A model built from those keys then
      1. pre-hook  delete_rows_of_changed_keys(): deletes every row that names a key which is not
                   a current, unchanged key (changed keys and keys that vanished);
      2. model     selects only the rows of new and changed keys (keys_to_build_filter()), and the
                   rows that name no key (a null key column): step 1 deletes those on every build,
                   so every build makes them again, as a full build does;
      3. strategy  append (the delete made room), so its rows equal a full build's.
    A key's fingerprint must cover every column the model reads for it: a row the fingerprint does
    not cover could change without the key being rebuilt. The update either passes whole or
    leaves the warehouse as it was (pipeline.staged_warehouse), so the flags and the rows built
    from them always come from one build. On Spark these models are rebuilt whole
    (`--full-refresh`), as the incremental-by-run ones are.
-#}

{#- The previous build of the model being built (none on a full build or in a unit test): what
    a fingerprint model compares itself with. -#}
{% macro previous_build_of_this() -%}
    {%- if execute and model.resource_type != 'unit_test' and not flags.FULL_REFRESH -%}
        {{ return(adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier)) }}
    {%- endif -%}
    {{ return(none) }}
{%- endmacro %}


{#- The two closing CTEs of a fingerprint model: `fingerprinted` (one row per key of `rows_cte`,
    whose rows carry the key columns and a `row_fingerprint`: key_fingerprint = the hash of its
    rows' hashes, in order) and `flagged` (is_new_or_changed against `previous`). The model ends
    `select * from flagged`. -#}
{% macro fingerprinted_and_flagged(rows_cte, key_columns, previous) -%}
fingerprinted as (

    select
        {{ key_columns | join(', ') }},
        {{ change_group_fingerprint('row_fingerprint') }} as key_fingerprint
    from {{ rows_cte }}
    group by {{ key_columns | join(', ') }}

),

flagged as (

    {{ flag_new_or_changed_keys('fingerprinted', key_columns, previous) }}

)
{%- endmacro %}


{#- select <fingerprinted>.*, is_new_or_changed from the CTE `fingerprinted` (key columns plus
    key_fingerprint), compared with `previous` (previous_build_of_this()). -#}
{% macro flag_new_or_changed_keys(fingerprinted, key_columns, previous) -%}
    select
        {{ fingerprinted }}.*,
    {%- if previous is not none %}
        previous.key_fingerprint is null or previous.key_fingerprint <> {{ fingerprinted }}.key_fingerprint as is_new_or_changed
    from {{ fingerprinted }}
    left join {{ previous }} as previous
        on {% for column in key_columns %}previous.{{ column }} = {{ fingerprinted }}.{{ column }}{{ ' and ' if not loop.last }}{% endfor %}
    {%- else %}
        true as is_new_or_changed
    from {{ fingerprinted }}
    {%- endif %}
{%- endmacro %}


{#- Rows whose key (key_map: [[the model's expression, fingerprint column], ...]) is a new or
    changed key of `fingerprints`, or that name no key (one of its expressions null: no current
    key holds such a row, so delete_rows_of_changed_keys deletes it on every build). On a full
    build: every row.

    A one-column key is written into the SQL as a list of constants when there are few, as
    runs_to_build() writes runs (`device_id in ('a', 'b')` instead of an exists subquery):
    DuckDB then reads the key column first and only the matching rows of the others. The
    subquery made it read every column of every row before joining: 0.22 of the 0.47 s that
    fct_condition_quotients took in an update at 10,000 runs, where the list takes 0.01 s. The
    predicate is marked /*iopscope:keys_to_build column=... query=...*/ ... /*iopscope:keys_to_build_end*/
    so that the update replay (iopscope/update_replay.py) renders it again from the query. -#}
{% macro keys_to_build_filter(fingerprints, key_map) -%}
    {%- if not is_incremental() -%}
    (1 = 1)
    {%- elif execute and key_map | length == 1 and model.resource_type != 'unit_test' -%}
        {%- set expression, key_column = key_map[0] -%}
        {%- set query = 'select ' ~ key_column ~ ' from ' ~ fingerprints ~ ' where is_new_or_changed and ' ~ key_column ~ ' is not null' -%}
        {%- if '*/' in query or ' ' in expression -%}
            {{ exceptions.raise_compiler_error("keys_to_build_filter: cannot mark '" ~ expression ~ "' for the update replay") }}
        {%- endif -%}
        {%- set keys = run_query(query).columns[0].values() -%}
    /*iopscope:keys_to_build column={{ expression }} query={{ query }}*/
    ({{ expression }} is null
        {%- if keys | length == 0 %}
    )
        {%- elif keys | reject('string') | list | length == 0 %}
     or {{ listed_or_queried(expression, keys, query) }})
        {%- else %}
     or {{ expression }} in ({{ query }}))
        {%- endif %}
    /*iopscope:keys_to_build_end*/
    {%- else -%}
    ({% for expression, key_column in key_map %}{{ expression }} is null or {% endfor -%}
    exists (
        select 1 from {{ fingerprints }} as changed_keys
        where changed_keys.is_new_or_changed
        {%- for expression, key_column in key_map %}
          and changed_keys.{{ key_column }} = {{ expression }}
        {%- endfor %}
    ))
    {%- endif -%}
{%- endmacro %}


{% macro delete_rows_of_changed_keys(fingerprints, key_maps) -%}
    {{ return(adapter.dispatch('delete_rows_of_changed_keys', 'iopscope')(fingerprints, key_maps)) }}
{%- endmacro %}


{#- Spark: see spark__delete_stale_runs (Parquet tables cannot delete rows). -#}
{% macro spark__delete_rows_of_changed_keys(fingerprints, key_maps) -%}
    {%- if is_incremental() -%}
        {{ exceptions.raise_compiler_error("incremental-by-key models need --full-refresh on Spark (Parquet tables cannot delete rows): " ~ this) }}
    {%- endif -%}
    select 1
{%- endmacro %}


{#- key_maps: one key_map per key a row names (a configuration pair names two); the row goes
    when any of them is not a current, unchanged key. -#}
{% macro default__delete_rows_of_changed_keys(fingerprints, key_maps) -%}
    {%- if is_incremental() -%}
    delete from {{ this }}
    where
        {%- for key_map in key_maps %}
        not exists (
            select 1 from {{ fingerprints }} as kept_keys
            where not kept_keys.is_new_or_changed
            {%- for column, key_column in key_map %}
              and kept_keys.{{ key_column }} = {{ this }}.{{ column }}
            {%- endfor %}
        ){{ ' or' if not loop.last }}
        {%- endfor %}
    {%- else -%}
    select 1
    {%- endif -%}
{%- endmacro %}


{#- Every column of `relation` (quoted), for a fingerprint that must cover whatever a model reads of it
    (a column the model starts reading later is then covered too). Known only when dbt executes
    a model: at parse time and in unit tests, just `fallback`; no column at all is an error. -#}
{% macro columns_of(relation, fallback=[]) -%}
    {#- at parse time, and in a unit test (its inputs are CTEs, not relations): the fallback -#}
    {%- if not execute or model.resource_type == 'unit_test' -%}
        {{ return(fallback) }}
    {%- endif -%}
    {%- set names = [] -%}
    {%- for column in adapter.get_columns_in_relation(relation) -%}
        {%- do names.append(adapter.quote(column.name)) -%}
    {%- endfor -%}
    {%- if not names -%}
        {#- a fingerprint of no column would call every key unchanged for ever -#}
        {{ exceptions.raise_compiler_error("columns_of: no columns found for " ~ relation ~ " (built yet?)") }}
    {%- endif -%}
    {{ return(names) }}
{%- endmacro %}
