-- Every published figure keeps its printed form: the text it was printed as (which reads back as
-- the value) and a positive resolution no coarser than 1 (the transcription prints integers at
-- least to the unit). A figure without them would get no precision bounds.
{%- set figures = ['stg_lake__published_tpcc_results', 'stg_lake__published_io_results',
                   'stg_lake__published_sqlserver_results', 'stg_lake__published_tpcc_timeseries'] %}
{%- for model in figures %}
select '{{ model }}' as model, csv_line, metric_value, metric_value_text, metric_value_resolution
from {{ ref(model) }}
where metric_value is not null
  and (metric_value_text is null
       or metric_value_resolution is null
       or metric_value_resolution <= 0
       or metric_value_resolution > 1
       or cast(metric_value_text as {{ type_double() }}) <> metric_value)
{%- if not loop.last %}
union all
{%- endif %}
{%- endfor %}
