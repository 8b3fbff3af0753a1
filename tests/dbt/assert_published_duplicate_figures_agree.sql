-- A test condition printed in two places (e.g. Samsung 002 Figures 3 and 6 both show XS1715,
-- MySQL Config #3, 500 wh, 100 connections) is merged into one fct_tpcc_results row; the
-- two printed figures must then be equal, or the merge would hide a conflict.
select
    study_id, host_id, device_id, db_config_id, db_server, warehouses, connections,
    buffer_pool_gib, page_size_kib, metric,
    count(*) as figures,
    min(metric_value) as smallest,
    max(metric_value) as largest
from {{ ref('stg_lake__published_tpcc_results') }}
group by study_id, host_id, device_id, db_config_id, db_server, warehouses, connections,
    buffer_pool_gib, page_size_kib, metric
having count(*) > 1 and max(metric_value) <> min(metric_value)
