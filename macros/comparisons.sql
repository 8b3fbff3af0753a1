{#- The conditions a result was measured under, as columns every domain fills (null = not stated,
    which matches only another null). int_device_metrics_keyed fills them; fct_device_quotients and
    fct_condition_quotients show them; the keys below are built from them. -#}
{% macro comparison_conditions() -%}
    {{ return(['source_kind', 'study_id', 'host_id', 'db_server', 'db_config_id', 'kit', 'warehouses',
               'connections', 'buffer_pool_gib', 'page_size_kib', 'device_count', 'array_layout',
               'processes_per_device', 'profile_id', 'direction', 'outstanding_ios', 'ioengine',
               'is_direct_io', 'measurement_area', 'source_section']) }}
{%- endmacro %}


{#- What one condition quotient may vary (fct_condition_quotients). Every other condition of
    comparison_conditions() must be equal on both sides.
      varies        the condition compared; stated (not null) on both sides, and at least one of
                    `differs` (default: the varies list) different
      with          conditions that change with it by construction (a configuration sets its buffer
                    pool; a server runs its own configuration; the 4k / 16k pages are two configs; a
                    host runs its own build of the server)
      stated_equal  conditions that must be equal where both sides state them, and may be unstated
                    on one side (Fujitsu states four processes' figure for an unnamed small-block profile)
      level         the numeric column that orders the two sides (level_a / level_b), if any
    The same lists name the sweeps: a sweep over connections holds key_except_connections fixed. -#}
{% macro condition_kinds() -%}
    {{ return([
        {'name': 'db_config', 'varies': ['db_config_id'], 'with': ['buffer_pool_gib'], 'stated_equal': [], 'level': none},
        {'name': 'db_server', 'varies': ['db_server'], 'with': ['db_config_id', 'buffer_pool_gib'], 'stated_equal': [], 'level': none},
        {'name': 'page_size', 'varies': ['page_size_kib'], 'with': ['db_config_id'], 'stated_equal': [], 'level': 'page_size_kib'},
        {'name': 'connections', 'varies': ['connections'], 'with': [], 'stated_equal': [], 'level': 'connections'},
        {'name': 'buffer_pool', 'varies': ['buffer_pool_gib'], 'with': [], 'stated_equal': [], 'level': 'buffer_pool_gib'},
        {'name': 'warehouses', 'varies': ['warehouses'], 'with': [], 'stated_equal': [], 'level': 'warehouses'},
        {'name': 'host', 'varies': ['host_id'], 'with': ['db_server'], 'stated_equal': [], 'level': none},
        {'name': 'layout', 'varies': ['device_count', 'array_layout'], 'with': [], 'stated_equal': [], 'level': 'device_count'},
        {'name': 'processes', 'varies': ['processes_per_device', 'array_layout'], 'with': ['measurement_area'],
         'stated_equal': ['profile_id'], 'level': 'processes_per_device', 'differs': ['processes_per_device']},
        {'name': 'outstanding_ios', 'varies': ['outstanding_ios'], 'with': [], 'stated_equal': [], 'level': 'outstanding_ios'},
        {'name': 'measurement_area', 'varies': ['measurement_area'], 'with': [], 'stated_equal': [], 'level': none},
    ]) }}
{%- endmacro %}


{#- The sweep variables of fct_sweep_quotient_summaries: [condition kind, level column]. -#}
{% macro sweep_variables() -%}
    {{ return([['connections', 'connections'], ['buffer_pool', 'buffer_pool_gib'], ['outstanding_ios', 'outstanding_ios']]) }}
{%- endmacro %}


{#- condition_key over every comparison condition but `dropped` (column names), read from `prefix`. -#}
{% macro condition_key_except(dropped, prefix='') -%}
    {%- set kept = [] -%}
    {%- for column in comparison_conditions() if column not in dropped -%}
        {%- do kept.append(column) -%}
    {%- endfor -%}
    {{ condition_key(kind_pairs(kept, prefix)) }}
{%- endmacro %}


{#- [[column, prefix ~ column], ...]: the label / expression pairs condition_key takes. -#}
{% macro kind_pairs(columns, prefix='') -%}
    {%- set pairs = [] -%}
    {%- for column in columns -%}
        {%- do pairs.append([column, prefix ~ column]) -%}
    {%- endfor -%}
    {{ return(pairs) }}
{%- endmacro %}


{#- How fct_device_quotients is materialized: a view (pairs computed when asked: they grow with
    the square of the devices sharing a condition key), but a table on Spark, whose marts reach
    the site and the CLI as their Parquet folders copied into a DuckDB file
    (iopscope/spark_warehouse.py): a Spark view has no folder. -#}
{% macro device_pairs_materialization() -%}
    {{ return(adapter.dispatch('device_pairs_materialization', 'iopscope')()) }}
{%- endmacro %}

{% macro default__device_pairs_materialization() -%}
    {{ return('view') }}
{%- endmacro %}

{% macro spark__device_pairs_materialization() -%}
    {{ return('table') }}
{%- endmacro %}
