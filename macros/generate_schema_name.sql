{#- Use the folder's schema name as is (staging, intermediate, marts), without dbt's
    default "<target schema>_" prefix, so SQL users write marts.fct_fio_results. -#}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name is none -%}
        {{ target.schema }}
    {%- else -%}
        {{ custom_schema_name | trim }}
    {%- endif -%}
{%- endmacro %}
