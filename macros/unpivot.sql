{#- Long form of wide metric columns: one `select ... union all` branch per metric.
    metrics: list of [column, higher_is_better ('true' | 'false' | 'null')];
    columns: list of column expressions kept on every row. Null metric values are dropped.
    bounds: when true, each metric's <column>_low / <column>_high become metric_value_low / _high;
    otherwise both bounds are the value (exact figures). -#}
{% macro unpivot_metrics(relation, metrics, columns, name_prefix='', bounds=false) -%}
    {%- for metric, higher_is_better in metrics %}
    select
        {{ columns | join(',\n        ') }},
        '{{ name_prefix }}{{ metric }}' as metric,
        cast({{ metric }} as {{ type_double() }}) as metric_value,
        cast({{ metric ~ '_low' if bounds else metric }} as {{ type_double() }}) as metric_value_low,
        cast({{ metric ~ '_high' if bounds else metric }} as {{ type_double() }}) as metric_value_high,
        cast({{ higher_is_better }} as {{ dbt.type_boolean() }}) as higher_is_better
    from {{ relation }}
    where {{ metric }} is not null
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{%- endmacro %}
