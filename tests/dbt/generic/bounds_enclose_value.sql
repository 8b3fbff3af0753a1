{#- Every figure lies within its own bounds: for each column c, c_low <= c <= c_high (a null high
    is unbounded), and c_low is set whenever c is. Tolerance: 1e-9 relative (float rounding). -#}
{% test bounds_enclose_value(model, columns) %}
{%- for column in columns %}
select '{{ column }}' as figure, {{ column }} as value, {{ column }}_low as low, {{ column }}_high as high
from {{ model }}
where {{ column }} is not null
  and ({{ column }}_low is null
       or {{ column }}_low > {{ column }} + 1e-9 * abs({{ column }})
       or ({{ column }}_high is not null and {{ column }}_high < {{ column }} - 1e-9 * abs({{ column }})))
{%- if not loop.last %}
union all
{%- endif %}
{%- endfor %}
{% endtest %}
