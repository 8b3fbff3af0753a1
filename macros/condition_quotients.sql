{#- Every column of int_device_metrics_keyed that fct_condition_quotients reads from a row, besides
    the group key (key_except_<kind>, metric, device_id): int_device_metric_groups fingerprints
    these, so a change in any of them rebuilds the row's groups. A column fct_condition_quotients
    starts to read must be added here. -#}
{% macro condition_quotient_inputs() -%}
    {{ return(comparison_conditions() + ['result_domain', 'metric', 'device_id', 'higher_is_better',
              'metric_value', 'metric_value_low', 'metric_value_high', 'fact_id', 'printed_figure_id',
              'is_range_end', 'is_approx', 'provenance']) }}
{%- endmacro %}
