{#- Several not-null checks in one query: the name of every listed column that is null in a row.
    The model is read once, into a CTE every branch reads: over a view (fct_sweep_quotient_summaries
    computes its device pairs when asked) a read per column computed the view once per column. -#}
{% test not_null_columns(model, columns) %}

with checked as (

    select {{ columns | join(', ') }} from {{ model }}

)

{% for column in columns -%}
select '{{ column }}' as null_column from checked where {{ column }} is null
{% if not loop.last %}union all
{% endif %}
{%- endfor %}

{% endtest %}
