-- Relative figures the studies print in their prose, which the transcription leaves out on purpose
-- (reference README, "Numbers deliberately not transcribed"), must each come out of ONE mart row:
--   Samsung 002 "strong 31% improvement": Percona Server (Config #A) over MySQL (Config #3), XS1715
--     NVMe, dual socket, 500 wh, 100 connections: (103683.58 - 79337.96) / 79337.96 = 30.7 % ->
--     fct_condition_quotients, varied_condition = db_server
--   Samsung 002 "is now only 301%": 850 PRO SATA over the ST600MP0005 HDD, dual socket, MySQL
--     Config #3, 100 connections: (4775.19 - 1191.47) / 1191.47 = 300.8 % -> fct_device_quotients
--   Samsung 002 Table 1, 180.35 = PM1725 / HDD at 100 connections, the PM1725's knee of the
--     quad-socket sweep -> fct_sweep_quotient_summaries.quotient_at_knee_a
--   The HDD path length at 100 connections (quad socket) spans 68-88 M cycles from its 0.4 % CPU
--     -> fct_tpcc_results bounds, flagged wide
-- Fails on a missing row, on more than one matching row, or on a value that does not round to the
-- printed figure.
with condition_quotients as (

    select * from {{ ref('fct_condition_quotients') }}

),

device_quotients as (

    select * from {{ ref('fct_device_quotients') }}

),

sweep_summaries as (

    select * from {{ ref('fct_sweep_quotient_summaries') }}

),

tpcc as (

    select * from {{ ref('fct_tpcc_results') }}

),

found as (

    select 'percona over mysql, 31 %' as figure, 31.0 as printed, count(*) as matches,
           max(round(pct_diff, 0)) as computed
    from condition_quotients
    where varied_condition = 'db_server'
      and study_id = 'samsung_2016_nvme_oltp'
      and host_id = 'samsung_dual_socket'
      and device_id = 'samsung_xs1715'
      and metric = 'new_order_tpm'
      and connections = 100
      and condition_a like 'db_server=Percona%' and co_varied_a like '%db_config_id=percona_config_a%'
      and condition_b like 'db_server=MySQL%' and co_varied_b like '%db_config_id=mysql_config_3%'

    union all

    select 'sata over hdd, 301 %', 301.0, count(*), max(round(pct_diff, 0))
    from device_quotients
    where study_id = 'samsung_2016_nvme_oltp'
      and host_id = 'samsung_dual_socket'
      and db_config_id = 'mysql_config_3'
      and connections = 100
      and metric = 'new_order_tpm'
      and device_a_id = 'samsung_850pro'
      and device_b_id = 'seagate_st600mp0005'

    union all

    select 'nvme over hdd at the nvme knee, 180.35', 180.35, count(*), max(round(quotient_at_knee_a, 2))
    from sweep_summaries
    where sweep_variable = 'connections'
      and comparison_family = 'device'
      and host_id = 'samsung_quad_socket'
      and metric = 'new_order_tpm'
      and device_a_id = 'samsung_pm1725'
      and device_b_id = 'seagate_st600mp0005'
      and knee_level_a = 100

    union all

    select 'hdd path length low, 68 M', 68.0, count(*), max(floor(nominal_thread_cycles_per_new_order_low / 1e6))
    from tpcc
    where host_id = 'samsung_quad_socket' and device_id = 'seagate_st600mp0005' and connections = 100
      and is_path_length_range_wide

    union all

    select 'hdd path length high, 88 M', 88.0, count(*), max(ceil(nominal_thread_cycles_per_new_order_high / 1e6))
    from tpcc
    where host_id = 'samsung_quad_socket' and device_id = 'seagate_st600mp0005' and connections = 100
      and is_path_length_range_wide

)

select *
from found
where matches <> 1
   or computed is null
   or abs(computed - printed) > 0.000001
