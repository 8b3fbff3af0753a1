-- A TPC-C interval series is read from one run folder: a tpcc_start output is one file of one
-- run, a study's chart series one CSV of the study's folder. int_tpcc_series_aggregated is
-- incremental by run on that ground: a series spread over two runs would be aggregated from one
-- of them alone when only that run changed. Returns the series found in more than one run.
select tpcc_series_id, count(distinct run_id) as run_count
from {{ ref('int_tpcc_intervals_unioned') }}
group by tpcc_series_id
having count(distinct run_id) > 1 or count(run_id) < count(*)
