{#- round(value, digits) where digits is a column, not a constant. DuckDB takes that as is;
    Spark's round() needs a constant scale, so there the value is scaled by 10^digits, rounded
    half away from zero (as round does) and scaled back. -#}
{% macro round_to(value, digits) -%}
    {{ return(adapter.dispatch('round_to', 'iopscope')(value, digits)) }}
{%- endmacro %}

{% macro default__round_to(value, digits) -%}
    round({{ value }}, {{ digits }})
{%- endmacro %}

{% macro spark__round_to(value, digits) -%}
    (sign({{ value }}) * floor(abs({{ value }}) * power(10, {{ digits }}) + 0.5) / power(10, {{ digits }}))
{%- endmacro %}
