-- Quotients and percentage differences between two devices measured under the same conditions.
-- Two numbers are divided only when their comparison_key (see int_device_metrics_keyed) and
-- metric are equal and the devices differ; both orders are listed (A / B and B / A).
--
--   quotient  = value_a / value_b
--   pct_diff  = (value_a - value_b) / value_b x 100
with metrics as (

    select * from {{ ref('int_device_metrics_keyed') }}

),

paired as (

    select
        a.result_domain,
        a.source_kind,
        a.comparison_key,
        a.study_id,
        a.host_id,
        a.profile_id,
        a.load_level,
        a.db_config_id,
        a.connections,
        a.buffer_pool_gib,
        a.page_size_kib,
        a.outstanding_ios,
        a.array_layout,
        a.metric,
        a.higher_is_better,
        a.device_id as device_a_id,
        b.device_id as device_b_id,
        a.metric_value as value_a,
        b.metric_value as value_b,
        a.fact_id as fact_a_id,
        b.fact_id as fact_b_id,
        (a.is_approx or b.is_approx) as is_approx,
        {{ dbt.concat(["'A: '", "a.provenance", "' | B: '", "b.provenance"]) }} as provenance
    from metrics as a
    inner join metrics as b
        on  a.comparison_key = b.comparison_key
        and a.metric = b.metric
        and a.device_id <> b.device_id

),

derived as (

    select
        {{ surrogate_key(['comparison_key', 'metric', 'fact_a_id', 'fact_b_id']) }} as device_quotient_id,
        paired.*,
        {{ safe_divide('value_a', 'value_b') }} as quotient,
        {{ pct_diff('value_a', 'value_b') }} as pct_diff,
        case
            when higher_is_better is null or value_a = value_b then null
            when higher_is_better then value_a > value_b
            else value_a < value_b
        end as is_a_better
    from paired

),

final as (

    select * from derived

)

select * from final
