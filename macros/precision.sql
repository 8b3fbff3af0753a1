{#- Honest precision: every published figure is an interval [low, high], derived from how it was
    printed (docs/warehouse.md#honest-precision), and every figure derived from it carries the
    interval through (interval arithmetic on non-negative numbers).

    A published figure's half-width h:
      * plain figures: half a unit of the last printed digit (`resolution`, from the lake's
        value_resolution): 0.4 % CPU -> [0.35, 0.45]; 23868 tpm -> [23867.5, 23868.5];
      * hedged prose figures (qualifier says about / approximately / around): the writer rounded,
        so half a unit of the last non-zero digit, but no coarser than the second significant
        digit: "about 186000" -> +-500, "about 1470" -> +-5, "about 10000" -> +-500;
      * "just under X": [X - h_hedged, X];
      * lower bounds ("over", "exceeded"): [X, unbounded]; an unbounded high is null.
    Measured figures (no resolution): low = high = value.
    Bounds never go below zero (every figure here is a count, rate, time, share or price), and are
    rounded to 10 decimals, which removes binary noise (0.4 - 0.05 = 0.35000000000000003) and moves
    no bound by more than 5e-11. -#}

{#- The TPC-C figures that carry bounds, in the order the models list them. -#}
{% macro tpcc_figure_metrics() -%}
    {{ return(['new_order_tpm', 'p95_new_order_ms', 'max_new_order_ms', 'cpu_user_sys_pct', 'cpu_iowait_pct',
               'data_read_iops', 'data_write_iops', 'log_write_iops']) }}
{%- endmacro %}


{% macro is_hedged(qualifier) -%}
    (lower(coalesce({{ qualifier }}, '')) like '%about%'
     or lower(coalesce({{ qualifier }}, '')) like '%approx%'
     or lower(coalesce({{ qualifier }}, '')) like '%around%')
{%- endmacro %}


{#- One unit of the last non-zero digit of an integer figure (186000 -> 1000), capped at its second
    significant digit (10000 -> 1000) and never finer than its printed resolution. -#}
{% macro hedged_unit(value, resolution) -%}
    (case
        when {{ value }} is null or {{ value }} <= 0 or {{ value }} <> floor({{ value }}) then {{ resolution }}
        else greatest({{ resolution }}, least(
            power(10, floor(log10({{ value }})) - 1),
            case
            {%- for exponent in range(9, 0, -1) %}
                when mod({{ value }}, {{ 10 ** exponent }}) = 0 then {{ 10 ** exponent }}
            {%- endfor %}
                else 1
            end))
    end)
{%- endmacro %}


{% macro printed_low(value, resolution, qualifier) -%}
    round(case
        when {{ value }} is null then null
        when {{ resolution }} is null then {{ value }}
        when lower(coalesce({{ qualifier }}, '')) like '%lower bound%' then {{ value }}
        when lower(coalesce({{ qualifier }}, '')) like '%just under%' or {{ is_hedged(qualifier) }}
            then greatest({{ value }} - {{ hedged_unit(value, resolution) }} / 2.0, 0)
        else greatest({{ value }} - {{ resolution }} / 2.0, 0)
    end, 10)
{%- endmacro %}


{% macro printed_high(value, resolution, qualifier) -%}
    round(case
        when {{ value }} is null then null
        when {{ resolution }} is null then {{ value }}
        when lower(coalesce({{ qualifier }}, '')) like '%lower bound%' then null
        when lower(coalesce({{ qualifier }}, '')) like '%just under%' then {{ value }}
        when {{ is_hedged(qualifier) }} then {{ value }} + {{ hedged_unit(value, resolution) }} / 2.0
        else {{ value }} + {{ resolution }} / 2.0
    end, 10)
{%- endmacro %}


{#- Which rule set the bounds: 'measured' (exact), 'printed_digits', 'hedged', 'just_under', 'lower_bound'. -#}
{% macro precision_basis(value, resolution, qualifier) -%}
    (case
        when {{ value }} is null then null
        when {{ resolution }} is null then 'exact'
        when lower(coalesce({{ qualifier }}, '')) like '%lower bound%' then 'lower_bound'
        when lower(coalesce({{ qualifier }}, '')) like '%just under%' then 'just_under'
        when {{ is_hedged(qualifier) }} then 'hedged'
        else 'printed_digits'
    end)
{%- endmacro %}


{#- Interval quotient [a_low, a_high] / [b_low, b_high] of non-negative intervals.
    low = a_low / b_high (0 when b, which exists (b_value), is unbounded above); high = a_high / b_low
    (null = unbounded, when a is unbounded or b may be 0). -#}
{% macro ratio_low(a_low, b_high, b_value) -%}
    (case when ({{ a_low }}) is null or ({{ b_value }}) is null or ({{ b_value }}) = 0 then null
          when ({{ b_high }}) is null then 0.0
          else {{ safe_divide(a_low, b_high) }} end)
{%- endmacro %}

{% macro ratio_high(a_high, b_low) -%}
    {{ safe_divide(a_high, b_low) }}
{%- endmacro %}


{#- Span of an interval as a percentage of its value: (high - low) / |value| x 100; null when
    unbounded or the value is 0. -#}
{% macro range_width_pct(low, high, value) -%}
    ({{ safe_divide('(' ~ high ~ ') - (' ~ low ~ ')', 'abs(' ~ value ~ ')') }} * 100)
{%- endmacro %}


{#- A derived figure is flagged when its interval spans more than var('wide_range_min_pct') % of
    its value, or is unbounded above. Null when the value is null. -#}
{% macro is_range_wide(low, high, value) -%}
    (case when ({{ value }}) is null then null
          when ({{ high }}) is null or ({{ low }}) is null then true
          else (({{ high }}) - ({{ low }})) > {{ var('wide_range_min_pct') }} / 100.0 * abs({{ value }}) end)
{%- endmacro %}
