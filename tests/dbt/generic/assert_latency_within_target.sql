{#- Capability rows that claim a latency target must have a proving latency within it. -#}
{% test assert_latency_within_target(model) %}

select *
from {{ model }}
where latency_target_us is not null
  and (latency_us is null or latency_us > latency_target_us)

{% endtest %}
