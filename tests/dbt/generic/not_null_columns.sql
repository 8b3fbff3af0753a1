{#- Several not-null checks in one query: the name of every listed column that is null in a row. -#}
{% test not_null_columns(model, columns) %}

{%- set branches = [] -%}
{%- for column in columns -%}
    {%- do branches.append("select '" ~ column ~ "' as null_column from " ~ model ~ " where " ~ column ~ " is null") -%}
{%- endfor -%}
{{ branches | join('\nunion all\n') }}

{% endtest %}
