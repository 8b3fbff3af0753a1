{#- dbt.listagg() on Spark, ordered: dbt-spark's own version ignores `order by` (it warns and
    joins collect_list in whatever order the executors deliver), which would make
    int_run_fingerprints' hash and the joined citations depend on partitioning. Every listagg in
    the models orders by the joined value itself, so sorting the collected array is the same
    order DuckDB's string_agg(... order by ...) gives (binary string order). Like string_agg, the
    result is null when no value is non-null. dbt looks for dispatched dbt.* macros in the root
    project first, so the models keep calling dbt.listagg(). -#}
{% macro spark__listagg(measure, delimiter_text, order_by_clause, limit_num) -%}
    {%- set ordering = (order_by_clause or '') | trim | lower -%}
    {%- if ordering and ordering != 'order by ' ~ (measure | trim | lower) -%}
        {{ exceptions.raise_compiler_error("listagg on Spark orders only by the aggregated value itself, not '" ~ order_by_clause ~ "'") }}
    {%- endif -%}
    {%- set collected = 'collect_list(' ~ measure ~ ')' -%}
    {%- if ordering -%}{%- set collected = 'array_sort(' ~ collected ~ ')' -%}{%- endif -%}
    {%- if limit_num -%}{%- set collected = 'slice(' ~ collected ~ ', 1, ' ~ limit_num ~ ')' -%}{%- endif -%}
    (case when count({{ measure }}) > 0 then array_join({{ collected }}, {{ delimiter_text }}) end)
{%- endmacro %}
