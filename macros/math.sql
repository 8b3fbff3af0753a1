{#- numerator / denominator, null when the denominator is null or zero (never a division error). -#}
{% macro safe_divide(numerator, denominator) -%}
    (case when ({{ denominator }}) is null or ({{ denominator }}) = 0 then null
          else cast({{ numerator }} as {{ type_double() }}) / ({{ denominator }}) end)
{%- endmacro %}


{#- Percentage difference of a over b: (a - b) / b x 100; null when b is null or zero. -#}
{% macro pct_diff(a, b) -%}
    {{ safe_divide("(" ~ a ~ ") - (" ~ b ~ ")", b) }} * 100
{%- endmacro %}


{#- Integer-valued boolean aggregation that works on every engine (bool_or is not portable). -#}
{% macro any_true(expression) -%}
    (max(case when {{ expression }} then 1 else 0 end) = 1)
{%- endmacro %}


{#- a = b where two nulls count as equal (IS NOT DISTINCT FROM is not on every engine). -#}
{% macro null_safe_equal(a, b) -%}
    (({{ a }} = {{ b }}) or ({{ a }} is null and {{ b }} is null))
{%- endmacro %}


{#- 64-bit floating point. dbt.type_float() is FLOAT, which DuckDB reads as 32-bit REAL;
    DOUBLE is 64-bit on DuckDB, Spark and most engines. -#}
{% macro type_double() -%}
    {{ return(adapter.dispatch('type_double', 'iopscope')()) }}
{%- endmacro %}

{% macro default__type_double() -%}
    double
{%- endmacro %}


{#- Either of two nullable booleans is true. -#}
{% macro any_true_pair(a, b) -%}
    (coalesce({{ a }}, false) or coalesce({{ b }}, false))
{%- endmacro %}
