-- The studies' own printed ratios must come out of fct_device_quotients, computed from the
-- base figures (the transcription holds no ratios). Fails on a missing pair, on more than one
-- matching pair, or on a quotient that does not round to the printed figure.
--   Samsung 002 Table 1 (quad socket, Percona Config #A, 500 wh): PM1725 NVMe / 850 PRO SATA at
--     50 connections = 4.62; PM1725 NVMe / ST600MP0005 SAS HDD at 100 connections = 180.35
--   Fujitsu 001 "Maximum performance for 1 - 512 outstanding IOs", Database profile:
--     P3700 800 GB / SAS-12G HDD = 223.2
--   Percona buffer-pool sweep, 5 GB buffer pool, 16 KiB pages: PM1725 / 850 PRO = 21.97
with expected as (

    select 'samsung_2016_nvme_oltp' as study_id, 'new_order_tpm' as metric,
           'samsung_pm1725' as device_a_id, 'samsung_850pro' as device_b_id,
           '%host=samsung_quad_socket;%config=percona_config_a;%connections=50;%' as key_pattern,
           4.62 as printed_ratio, 2 as decimals
    union all
    select 'samsung_2016_nvme_oltp', 'new_order_tpm', 'samsung_pm1725', 'seagate_st600mp0005',
           '%host=samsung_quad_socket;%config=percona_config_a;%connections=100;%', 180.35, 2
    union all
    select 'fujitsu_2016_p3700', 'iops', 'intel_p3700_800gb', 'fujitsu_sas12g_hdd_450gb_15k',
           '%Maximum performance for 1 - 512 outstanding IOs%profile=database;%', 223.2, 1
    union all
    select 'percona_tpcc_bufferpool', 'new_order_tpm', 'samsung_pm1725', 'samsung_850pro',
           '%config=percona_page16k;%buffer_pool_gib=5.0; page_size_kib=16;%', 21.97, 2

),

quotients as (

    select * from {{ ref('fct_device_quotients') }}

),

matched as (

    select
        expected.study_id,
        expected.device_a_id,
        expected.device_b_id,
        expected.key_pattern,
        expected.printed_ratio,
        expected.decimals,
        count(quotients.quotient) as matches,
        max(quotients.quotient) as quotient
    from expected
    left join quotients
        on  quotients.study_id = expected.study_id
        and quotients.metric = expected.metric
        and quotients.device_a_id = expected.device_a_id
        and quotients.device_b_id = expected.device_b_id
        and quotients.comparison_key like expected.key_pattern
    group by expected.study_id, expected.device_a_id, expected.device_b_id, expected.key_pattern,
        expected.printed_ratio, expected.decimals

)

select *
from matched
where matches <> 1
   or abs({{ round_to('quotient', 'decimals') }} - printed_ratio) > 0.000001
