{#- Rows whose combination of `columns` occurs more than once (a composite key that is not unique).
    Nulls count as values: two rows that agree on every column, nulls included, collide. -#}
{% test unique_combination_of_columns(model, columns) %}

select {{ columns | join(', ') }}, count(*) as occurrences
from {{ model }}
group by {{ columns | join(', ') }}
having count(*) > 1

{% endtest %}
