-- One device, one condition varied: the effect of a configuration, page size, connection count,
-- buffer pool, host, server, layout, processes per drive, outstanding IOs or measurement area on
-- one metric of one device, with every other condition held equal.
--
-- For each kind in condition_kinds() (macros/comparisons.sql) two results of the same device and
-- metric are paired when
--   * their key_except_<kind> is equal: every comparison condition but the varied ones is equal
--     (not stated = 'n/a' matches only 'n/a'),
--   * the varied condition is stated on both sides and differs,
--   * conditions that change with it by construction may differ too (`with`: a configuration sets
--     its buffer pool; a server runs its own configuration; 4k and 16k pages are two
--     configurations; a host runs its own build of the server), and are shown in co_varied_a / _b,
--   * `stated_equal` conditions are equal where both sides state them,
--   * they are two printed figures (never one figure stated jointly for two layouts), neither a
--     range end.
-- Both orders are listed (A / B and B / A).
--
--   quotient      = value_a / value_b
--   pct_diff      = (value_a - value_b) / value_b x 100
--   quotient_low  = value_a_low / value_b_high, quotient_high = value_a_high / value_b_low
--   pct_diff_low / _high = (quotient_low / _high - 1) x 100
--
-- Incremental by device (int_device_fingerprints, macros/incremental_keys.sql): every pair is
-- two results of one device, so an update deletes the quotients of new, changed and vanished
-- devices and pairs again only their results; a full build pairs every device.
{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='fail',
    pre_hook="{{ delete_rows_of_changed_keys(ref('int_device_fingerprints'), [[['device_id', 'device_id']]]) }}"
) }}
-- depends_on: {{ ref('int_device_fingerprints') }}

with metrics as (

    select * from {{ ref('int_device_metrics_keyed') }} as keyed
    where not keyed.is_range_end
      and {{ keys_to_build_filter(ref('int_device_fingerprints'), [['keyed.device_id', 'device_id']]) }}

),

{%- for kind in condition_kinds() %}
{%- set dropped = kind['varies'] + kind['with'] + kind['stated_equal'] %}
{%- set side_conditions = kind['with'] + kind['stated_equal'] %}

{{ kind['name'] }}_pairs as (

    select
        a.result_domain,
        a.source_kind,
        '{{ kind['name'] }}' as varied_condition,
        a.device_id,
        a.metric,
        a.higher_is_better,
        {{ condition_key(kind_pairs(kind['varies'], 'a.')) }} as condition_a,
        {{ condition_key(kind_pairs(kind['varies'], 'b.')) }} as condition_b,
        {% if side_conditions %}{{ condition_key(kind_pairs(side_conditions, 'a.')) }}{% else %}cast(null as {{ dbt.type_string() }}){% endif %} as co_varied_a,
        {% if side_conditions %}{{ condition_key(kind_pairs(side_conditions, 'b.')) }}{% else %}cast(null as {{ dbt.type_string() }}){% endif %} as co_varied_b,
        {% if kind['level'] %}cast(a.{{ kind['level'] }} as {{ type_double() }}){% else %}cast(null as {{ type_double() }}){% endif %} as level_a,
        {% if kind['level'] %}cast(b.{{ kind['level'] }} as {{ type_double() }}){% else %}cast(null as {{ type_double() }}){% endif %} as level_b,
        a.key_except_{{ kind['name'] }} as shared_conditions,
        {%- for column in comparison_conditions() if column != 'source_kind' %}
        {% if column in dropped %}case when 1 = 0 then a.{{ column }} end{% else %}a.{{ column }}{% endif %} as {{ column }},
        {%- endfor %}
        a.metric_value as value_a,
        b.metric_value as value_b,
        a.metric_value_low as value_a_low,
        a.metric_value_high as value_a_high,
        b.metric_value_low as value_b_low,
        b.metric_value_high as value_b_high,
        a.fact_id as fact_a_id,
        b.fact_id as fact_b_id,
        (a.is_approx or b.is_approx) as is_approx,
        {{ dbt.concat(["'A: '", "a.provenance", "' | B: '", "b.provenance"]) }} as provenance
    from metrics as a
    inner join metrics as b
        on  a.key_except_{{ kind['name'] }} = b.key_except_{{ kind['name'] }}
        and a.metric = b.metric
        and a.device_id = b.device_id
        and a.printed_figure_id <> b.printed_figure_id
        {%- for column in kind['varies'] %}
        and a.{{ column }} is not null and b.{{ column }} is not null
        {%- endfor %}
        and ({% for column in kind.get('differs', kind['varies']) %}a.{{ column }} <> b.{{ column }}{{ ' or ' if not loop.last }}{% endfor %})
        {%- for column in kind['stated_equal'] %}
        and (a.{{ column }} is null or b.{{ column }} is null or a.{{ column }} = b.{{ column }})
        {%- endfor %}

),
{%- endfor %}

unioned as (
    {%- for kind in condition_kinds() %}
    select * from {{ kind['name'] }}_pairs
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}

),

derived as (

    select
        {{ surrogate_key(['varied_condition', 'metric', 'fact_a_id', 'fact_b_id']) }} as condition_quotient_id,
        unioned.*,
        {{ safe_divide('value_a', 'value_b') }} as quotient,
        {{ pct_diff('value_a', 'value_b') }} as pct_diff,
        {{ ratio_low('value_a_low', 'value_b_high', 'value_b') }} as quotient_low,
        {{ ratio_high('value_a_high', 'value_b_low') }} as quotient_high,
        case
            when higher_is_better is null or value_a = value_b then null
            when higher_is_better then value_a > value_b
            else value_a < value_b
        end as is_a_better
    from unioned

),

bounded as (

    select
        derived.*,
        (quotient_low - 1) * 100 as pct_diff_low,
        (quotient_high - 1) * 100 as pct_diff_high,
        {{ range_width_pct('quotient_low', 'quotient_high', 'quotient') }} as quotient_range_pct,
        {{ is_range_wide('quotient_low', 'quotient_high', 'quotient') }} as is_quotient_range_wide
    from derived

),

-- the device's fingerprint when its rows were made: the site's download parts are fingerprinted
-- by (device_id, device_fingerprint) instead of hashing 52 columns of every row (0.16 s of every
-- site build at 10,000 runs), as the sample marts' are by run_fingerprint
fingerprints as (

    select device_id, key_fingerprint from {{ ref('int_device_fingerprints') }}

),

final as (

    select
        bounded.*,
        fingerprints.key_fingerprint as device_fingerprint
    from bounded
    left join fingerprints on bounded.device_id = fingerprints.device_id

)

-- stored in device order: the site writes this mart in parts by device range, and a part's read
-- then skips the row groups of other devices instead of decompressing all 53 columns of every
-- row (at 10,000 runs, 850,000 rows: 0.07 -> 0.02 s per part of 32,000 rows, once or twice per
-- new run). An update appends its devices' rows at the end, each device's together.
select * from final
order by device_id
