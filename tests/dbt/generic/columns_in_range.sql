{#- Several value ranges checked in one query (one test node instead of one per column).
    ranges: {column: {min: x, max: y}} (either bound optional). Returns the column name and the
    offending value of every row outside its range; nulls pass (use not_null for those). -#}
{% test columns_in_range(model, ranges) %}

{%- set branches = [] -%}
{%- for column, bounds in ranges.items() -%}
    {%- set conditions = [] -%}
    {%- if bounds.get('min') is not none -%}{%- do conditions.append(column ~ ' < ' ~ bounds['min']) -%}{%- endif -%}
    {%- if bounds.get('max') is not none -%}{%- do conditions.append(column ~ ' > ' ~ bounds['max']) -%}{%- endif -%}
    {%- do branches.append(
        "select '" ~ column ~ "' as column_name, cast(" ~ column ~ " as " ~ type_double() ~ ") as out_of_range_value"
        ~ " from " ~ model ~ " where " ~ column ~ " is not null and (" ~ (conditions | join(' or ')) ~ ")") -%}
{%- endfor -%}
{{ branches | join('\nunion all\n') }}

{% endtest %}
