// /fio opens on "read + write" (direction "total"): every job must have a total row there,
// whether it did IO in two directions (summed) or in one (that direction itself).
import assert from "node:assert/strict";
import {test} from "node:test";
import {shapeMeasured} from "../../src/components/fio-data.js";

const job = {run_id: "r1", source_path: "r1/fio.json", started_at: null, group_id: 0, job_name: "j", outstanding_ios: 8,
  hostname: "h", device_id: "d1", rw: "randrw", bs: "8k", read_pct: 70, is_aggregate: false};
const label = (id) => `device ${id}`;
const totalsOf = (rows) => shapeMeasured(rows, label).filter((r) => r.direction === "total");

test("a read + write job gets one summed total, percentiles left out", () => {
  const [total, ...rest] = totalsOf([
    {...job, direction: "read", iops: 700, bw_mib_per_s: 5.5, clat_mean_us: 100, clat_p99_us: 300},
    {...job, direction: "write", iops: 300, bw_mib_per_s: 2.5, clat_mean_us: 200, clat_p99_us: 900}]);
  assert.equal(rest.length, 0);
  assert.equal(total.iops, 1000);
  assert.equal(total.bw_mib_per_s, 8);
  assert.equal(total.clat_mean_us, 130);   // (700 x 100 + 300 x 200) / 1000
  assert.equal(total.clat_p99_us, null);
});

test("a write-only job's total is its write row, percentiles kept", () => {
  const totals = totalsOf([{...job, rw: "randwrite", read_pct: 0, direction: "write", iops: 420, bw_mib_per_s: 26.25,
    clat_mean_us: 150, clat_p99_us: 800, fio_result_id: "x"}]);
  assert.equal(totals.length, 1);
  assert.equal(totals[0].iops, 420);
  assert.equal(totals[0].clat_p99_us, 800);
  assert.equal(totals[0].fio_result_id, null);
  assert.match(totals[0].provenance, /write only/);
  assert.equal(totals[0].device_label, "device d1");
});

test("jobs are told apart by run, file, group, name, outstanding IOs and host", () => {
  const rows = [8, 16].flatMap((oio) => [{...job, outstanding_ios: oio, direction: "read", iops: oio}]);
  assert.deepEqual(totalsOf(rows).map((r) => r.iops), [8, 16]);
});
