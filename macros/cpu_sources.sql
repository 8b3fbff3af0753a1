{#- Preference order of the CPU sources a run may hold (lower is preferred): mpstat, then sar,
    collectl, iostat's avg-cpu block. One run's CPU is read from its best source only, never
    averaged over two tools' copies. -#}
{% macro cpu_source_rank(source_block) -%}
    case {{ source_block }}
        when 'mpstat' then 1 when 'sar' then 2 when 'collectl' then 3 when 'iostat-avg-cpu' then 4 else 5
    end
{%- endmacro %}
