-- A quotient may only divide two results measured under the same conditions. This checks the
-- conditions on the facts themselves (not the comparison_key text that chose the pairs): any
-- quotient whose two sides differ in a condition column is returned.
with quotients as (

    select * from {{ ref('fct_device_quotients') }}
    where {{ in_pair_test_sample('comparison_key') }}  -- all pairs unless sampled (macros/pair_test_sample.sql)

),

tpcc as (

    select * from {{ ref('fct_tpcc_results') }}

),

published_io as (

    select * from {{ ref('fct_published_io_results') }}

),

fio as (

    select * from {{ ref('fct_fio_results') }}

),

tpcc_violations as (

    select quotients.device_quotient_id, 'tpcc' as domain
    from quotients
    inner join tpcc as a on quotients.fact_a_id = a.tpcc_result_id
    inner join tpcc as b on quotients.fact_b_id = b.tpcc_result_id
    where quotients.result_domain = 'tpcc'
      and not (
            {{ null_safe_equal('a.source_kind', 'b.source_kind') }}
        and {{ null_safe_equal('a.study_id', 'b.study_id') }}
        and {{ null_safe_equal('a.host_id', 'b.host_id') }}
        and {{ null_safe_equal('a.db_server', 'b.db_server') }}
        and {{ null_safe_equal('a.db_config_id', 'b.db_config_id') }}
        and {{ null_safe_equal('a.kit', 'b.kit') }}
        and {{ null_safe_equal('a.warehouses', 'b.warehouses') }}
        and {{ null_safe_equal('a.connections', 'b.connections') }}
        and {{ null_safe_equal('a.buffer_pool_gib', 'b.buffer_pool_gib') }}
        and {{ null_safe_equal('a.page_size_kib', 'b.page_size_kib') }}
        and {{ null_safe_equal('a.data_device_count', 'b.data_device_count') }}
        and {{ null_safe_equal('a.array_layout', 'b.array_layout') }}
        and a.device_id <> b.device_id
      )

),

published_io_violations as (

    select quotients.device_quotient_id, 'published io' as domain
    from quotients
    inner join published_io as a on quotients.fact_a_id = a.published_io_result_id
    inner join published_io as b on quotients.fact_b_id = b.published_io_result_id
    where not (
            {{ null_safe_equal('a.study_id', 'b.study_id') }}
        and {{ null_safe_equal('a.provenance', 'b.provenance') }}
        and {{ null_safe_equal('a.profile_id', 'b.profile_id') }}
        and {{ null_safe_equal('a.array_layout', 'b.array_layout') }}
        and {{ null_safe_equal('a.outstanding_ios', 'b.outstanding_ios') }}
        and {{ null_safe_equal('a.qualifier', 'b.qualifier') }}
        and a.metric = b.metric
        and a.device_id <> b.device_id
      )

),

fio_violations as (

    select quotients.device_quotient_id, 'fio' as domain
    from quotients
    inner join fio as a on quotients.fact_a_id = a.fio_result_id
    inner join fio as b on quotients.fact_b_id = b.fio_result_id
    where not (
            {{ null_safe_equal('a.source_kind', 'b.source_kind') }}
        and {{ null_safe_equal('a.host_id', 'b.host_id') }}
        and {{ null_safe_equal('a.profile_id', 'b.profile_id') }}
        and {{ null_safe_equal('a.direction', 'b.direction') }}
        and {{ null_safe_equal('a.outstanding_ios', 'b.outstanding_ios') }}
        and {{ null_safe_equal('a.ioengine', 'b.ioengine') }}
        and {{ null_safe_equal('a.is_direct_io', 'b.is_direct_io') }}
        and {{ null_safe_equal('a.measurement_area', 'b.measurement_area') }}
        and {{ null_safe_equal('a.device_count', 'b.device_count') }}
        and {{ null_safe_equal('a.array_layout', 'b.array_layout') }}
        and a.device_id <> b.device_id
      )

),

unmatched as (

    -- every quotient must trace back to two facts of its domain
    select quotients.device_quotient_id, 'no fact' as domain
    from quotients
    left join tpcc on quotients.fact_a_id = tpcc.tpcc_result_id
    left join published_io on quotients.fact_a_id = published_io.published_io_result_id
    left join fio on quotients.fact_a_id = fio.fio_result_id
    where tpcc.tpcc_result_id is null
      and published_io.published_io_result_id is null
      and fio.fio_result_id is null

)

select * from tpcc_violations
union all
select * from published_io_violations
union all
select * from fio_violations
union all
select * from unmatched
