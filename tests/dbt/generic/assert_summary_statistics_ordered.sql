{#- A sweep summary's statistics are consistent: min <= geomean <= mean <= max (AM-GM), each
    extreme's level lies within the sweep, and the low bounds do not exceed the statistics. -#}
{% test assert_summary_statistics_ordered(model) %}
select sweep_summary_id, quotient_min, quotient_geomean, quotient_mean, quotient_max
from {{ model }}
where quotient_min > quotient_max + 1e-12
   or (quotient_geomean is not null
       and (quotient_geomean < quotient_min - 1e-9 * quotient_min or quotient_geomean > quotient_mean + 1e-9 * quotient_mean))
   or quotient_mean > quotient_max + 1e-9 * quotient_max
   or level_at_quotient_min < min_level or level_at_quotient_min > max_level
   or level_at_quotient_max < min_level or level_at_quotient_max > max_level
   or quotient_mean_low > quotient_mean + 1e-9 * quotient_mean
   or quotient_mean_high < quotient_mean - 1e-9 * quotient_mean
{% endtest %}
