-- tpcc_start's printed <TpmC> must equal New-Order (success + late) x 60 / measured seconds,
-- recomputed in the warehouse from the Raw Results counts (int_tpcc_runs_summarized), wherever
-- both exist. Tolerance: 0.001 (printed to 3 decimals) plus two float32 ulps (tpcc_start
-- computes in single precision).
select
    tpcc_result_id,
    provenance,
    tpmc_printed,
    tpmc_from_counts
from {{ ref('fct_tpcc_results') }}
where tpmc_printed is not null
  and tpmc_from_counts is not null
  and abs(tpmc_printed - tpmc_from_counts) > 0.001 + abs(tpmc_printed) * 2.4e-7
