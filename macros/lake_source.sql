{#- Where a lake table is read from, per engine, from the one generated source file
    (models/staging/_lake__sources.yml, written by `python -m iopscope.dbt_sources`).

    dbt-duckdb resolves a source itself from its `external_location` (read_parquet over the
    table's Hive-partitioned folder). dbt-spark has no such setting, so this override of dbt's
    source() hands Spark the folder named by the source's `spark_location`: parquet.`<folder>`
    reads every part and turns the collection=<name> folders into a column, as DuckDB does.
    builtins.source() is still called first, so dbt's graph and its unit tests see the source. -#}
{% macro source(source_name, table_name) -%}
    {%- set relation = builtins.source(source_name, table_name) -%}
    {{ return(adapter.dispatch('lake_relation', 'iopscope')(relation, source_name, table_name)) }}
{%- endmacro %}


{% macro default__lake_relation(relation, source_name, table_name) -%}
    {{ return(relation) }}
{%- endmacro %}


{% macro spark__lake_relation(relation, source_name, table_name) -%}
    {#- At parse time the graph is empty, and a unit test reads fixtures in place of the source. -#}
    {%- if not execute or model.resource_type == 'unit_test' -%}
        {{ return(relation) }}
    {%- endif -%}
    {%- for node in graph.sources.values()
            if node.source_name == source_name and node.name == table_name -%}
        {%- set location = node.source_meta.get('spark_location') or node.meta.get('spark_location') -%}
        {%- if location -%}
            {{ return("parquet.`" ~ location | replace('{name}', node.identifier) ~ "`") }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(relation) }}
{%- endmacro %}
