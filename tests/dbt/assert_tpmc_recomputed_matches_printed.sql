-- tpcc_start's printed <TpmC> must equal New-Order (success + late) x 60 / measured seconds,
-- recomputed in the warehouse from the Raw Results counts (int_tpcc_runs_summarized), wherever
-- both exist. Tolerance: 0.001 (printed to 3 decimals) plus two float32 ulps (tpcc_start
-- computes in single precision). go-tpc prints tpmC from the exact elapsed time but Takes(s)
-- to 0.1 s (runs of at least 10 s: under 0.5 %), plus tpmC's own 0.1 rounding.
select
    tpcc_result_id,
    provenance,
    tpmc_printed,
    tpmc_from_counts
from {{ ref('fct_tpcc_results') }}
where tpmc_printed is not null
  and tpmc_from_counts is not null
  and abs(tpmc_printed - tpmc_from_counts) > case
        when kit = 'go-tpc' then 0.05 + abs(tpmc_printed) * 0.005
        else 0.001 + abs(tpmc_printed) * 2.4e-7 end
