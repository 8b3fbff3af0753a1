{#- Every column of int_device_metrics_keyed that fct_condition_quotients reads from a row, besides
    the key_except_<kind> texts made of these very columns. A column it starts to read must be
    added here (int_device_fingerprints hashes these: see device_comparison_inputs()). -#}
{% macro condition_quotient_inputs() -%}
    {{ return(comparison_conditions() + ['result_domain', 'metric', 'device_id', 'higher_is_better',
              'metric_value', 'metric_value_low', 'metric_value_high', 'fact_id', 'printed_figure_id',
              'is_range_end', 'is_approx', 'provenance']) }}
{%- endmacro %}


{#- Every column of int_device_metrics_keyed that the device-level comparison marts
    (fct_condition_quotients, fct_device_quotients, fct_sweep_quotient_summaries through the two)
    read: int_device_fingerprints hashes them per device, so a change in any of them rebuilds that
    device's rows there. A column one of them starts to read must be added here. -#}
{% macro device_comparison_inputs() -%}
    {{ return(condition_quotient_inputs() + ['comparison_key', 'load_level']) }}
{%- endmacro %}


{#- What fct_sweep_quotient_summaries reads of one result's place in a sweep (its side_sweeps):
    the sweep's steps and, for TPC-C, the knee and stop-condition columns of the sweep.
    int_device_fingerprints hashes them per device with the device's results. -#}
{% macro sweep_side_inputs() -%}
    {{ return({
        'tpcc_steps': ['tpcc_result_id', 'sweep_variable', 'sweep_id'],
        'tpcc_knees': ['knee_load', 'min_load', 'max_load', 'first_cpu_break_load', 'first_p95_break_load',
                       'first_log_write_break_load', 'first_failed_load', 'max_load_within_cpu_limit',
                       'max_load_within_p95_limit', 'max_load_within_log_write_limit',
                       'max_load_before_plateau', 'max_load_before_failure'],
        'io_steps': ['fact_id', 'sweep_variable', 'sweep_id', 'load_level', 'knee_load_level']
    }) }}
{%- endmacro %}
