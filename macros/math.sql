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


{#- avg / sum / stddev_samp of doubles whose result does not depend on how the engine splits the rows among its
    threads. Doubles summed in another order can differ in the last bit, and then an update and a
    full build of the same rows disagree: at 1,000 runs 36 of 217 devices looked changed to
    int_device_fingerprints after an update that added no run (CPU means of int_runs_cpu_summarized,
    a view over millions of samples). On DuckDB the values are summed in ascending order (an
    ordered aggregate: one pass over the sorted values); on other engines (Spark builds are always
    full) the plain aggregate. -#}
{% macro stable_avg(expression) -%}
    {{ return(adapter.dispatch('stable_aggregate', 'iopscope')('avg', expression)) }}
{%- endmacro %}

{% macro stable_sum(expression) -%}
    {{ return(adapter.dispatch('stable_aggregate', 'iopscope')('sum', expression)) }}
{%- endmacro %}

{% macro stable_stddev_samp(expression) -%}
    {{ return(adapter.dispatch('stable_aggregate', 'iopscope')('stddev_samp', expression)) }}
{%- endmacro %}

{% macro duckdb__stable_aggregate(function, expression) -%}
    {{ function }}({{ expression }} order by {{ expression }})
{%- endmacro %}

{% macro default__stable_aggregate(function, expression) -%}
    {{ function }}({{ expression }})
{%- endmacro %}
