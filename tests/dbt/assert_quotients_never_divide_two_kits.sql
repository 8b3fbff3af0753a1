-- A quotient of two TPC-C results is only meaningful within one kit: tpcc-mysql's TpmC, go-tpc's
-- tpmC, HammerDB's NOPM and the studies' NOTPM / NOPM count New-Order transactions with different
-- transaction mixes, think times and retry rules (HammerDB's TPM is engine-specific and is no
-- metric at all). The comparison keys hold the kit equal (int_device_metrics_keyed); this test
-- checks the outcome in every mart that divides two facts: the two quotient marts and the
-- scaling factors built on them.
with results as (

    select tpcc_result_id, coalesce(kit, 'kit not stated') as kit from {{ ref('fct_tpcc_results') }}

),

device_pairs as (

    select 'fct_device_quotients' as mart, q.device_quotient_id as quotient_id, a.kit as kit_a, b.kit as kit_b
    from {{ ref('fct_device_quotients') }} as q
    inner join results as a on q.fact_a_id = a.tpcc_result_id
    inner join results as b on q.fact_b_id = b.tpcc_result_id
    where q.result_domain = 'tpcc'  -- a view: asking for the TPC-C pairs computes only those

),

condition_pairs as (

    select 'fct_condition_quotients' as mart, q.condition_quotient_id as quotient_id, a.kit as kit_a, b.kit as kit_b
    from {{ ref('fct_condition_quotients') }} as q
    inner join results as a on q.fact_a_id = a.tpcc_result_id
    inner join results as b on q.fact_b_id = b.tpcc_result_id

),

scaling_pairs as (

    select 'fct_scaling_factors' as mart, q.scaling_factor_id as quotient_id, a.kit as kit_a, b.kit as kit_b
    from {{ ref('fct_scaling_factors') }} as q
    inner join results as a on q.fact_a_id = a.tpcc_result_id
    inner join results as b on q.fact_b_id = b.tpcc_result_id

)

select * from device_pairs where kit_a <> kit_b
union all
select * from condition_pairs where kit_a <> kit_b
union all
select * from scaling_pairs where kit_a <> kit_b
