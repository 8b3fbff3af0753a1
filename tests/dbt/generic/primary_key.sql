{#- A key column: rows where it is null or not unique (unique + not_null in one query). -#}
{% test primary_key(model, column_name) %}

select {{ column_name }} as key_value, count(*) as occurrences
from {{ model }}
group by {{ column_name }}
having {{ column_name }} is null or count(*) > 1

{% endtest %}
