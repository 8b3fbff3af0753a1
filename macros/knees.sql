{#- The knee of a load curve, shared by the TPC-C sweeps (int_tpcc_sweep_steps) and the IO sweeps
    over outstanding IOs (int_io_sweep_steps).

    curve_gains(points): `points` has one row per (sweep_id, load_level) with `throughput`; adds
      next_load_level, next_throughput and gain_to_next_pct = (next - this) / this x 100.
    first_knees(gains): per sweep_id, knee_load_level = the lowest level whose next step gains less
      than var('knee_min_gain_pct') (no row when every step still gains at least that). -#}
{% macro curve_gains(points) -%}
    select
        sweep_id,
        load_level,
        throughput,
        lead(throughput) over (partition by sweep_id order by load_level) as next_throughput,
        lead(load_level) over (partition by sweep_id order by load_level) as next_load_level,
        {{ pct_diff('lead(throughput) over (partition by sweep_id order by load_level)', 'throughput') }} as gain_to_next_pct
    from {{ points }}
{%- endmacro %}


{% macro first_knees(gains) -%}
    select sweep_id, min(load_level) as knee_load_level
    from {{ gains }}
    where gain_to_next_pct < {{ var('knee_min_gain_pct') }}
    group by sweep_id
{%- endmacro %}
