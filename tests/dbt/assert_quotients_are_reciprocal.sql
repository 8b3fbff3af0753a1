-- Every quotient A / B has its mirror B / A, and their product is 1; a quotient of 0 (A's value
-- is 0) has a mirror that divides by zero, so its mirror's quotient is null. The 100,000-run
-- warehouse has such pairs (CPU iowait 0.0 against 0.0067 %): the test once called them failures.
with quotients as (

    select * from {{ ref('fct_device_quotients') }}
    where {{ in_pair_test_sample('comparison_key') }}  -- all pairs unless sampled (macros/pair_test_sample.sql)

)

select a.device_quotient_id, a.quotient, b.quotient as mirror_quotient
from quotients as a
left join quotients as b
    on  a.comparison_key = b.comparison_key
    and a.metric = b.metric
    and a.fact_a_id = b.fact_b_id
    and a.fact_b_id = b.fact_a_id
where a.quotient is not null
  and (
        b.device_quotient_id is null
        or (a.quotient = 0 and b.quotient is not null)
        or (a.quotient <> 0 and (b.quotient is null or abs(a.quotient * b.quotient - 1) > 1e-9))
  )
