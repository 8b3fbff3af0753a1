// The evidence behind each drive's IOPS at a latency target, level by level, against
// hand-worked vectors (docs/sizing.md, "The evidence levels, by hand"), and issue #14's scenario
// on the bundled data (tests/js/sizing-scenario.json, extracted from the warehouse).
import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {test} from "node:test";
import {READ_PCT_TOLERANCE, deviceEvidence, fioJobs, harmonicLerp, maxDepthOf, specIops} from "../../src/components/sizing-evidence.js";
import {rankResults, sizeDevice} from "../../src/components/sizing.js";

const near = (got, want, tol = 1e-6) => assert.ok(Math.abs(got - want) <= tol * Math.max(1, Math.abs(want)), `${got} != ${want}`);

/** fio rows of one job (one per direction), as fct_fio_results has them. */
function job(id, {device = "d", read = 70, bs = 8, oio, r, w, source = "measured", layout = "single", count = 1, run = "run-a"}) {
  const row = (direction, [iops, p99, p999, mean]) => ({
    fio_job_id: id, run_id: run, source_kind: source, device_id: device, device_count: count, array_layout: layout, job_name: id,
    job_read_pct: read, direction, block_size_kib: bs, outstanding_ios: oio, iops, clat_p99_us: p99, clat_p99_9_us: p999, lat_mean_us: mean
  });
  return [r && row("read", r), w && row("write", w)].filter(Boolean);
}

// Level 1 curve, 70 % reads, 8 KiB: [IOPS, p99 us, p99.9 us, mean us] per direction.
const CURVE = [
  ...job("qd1", {oio: 1, r: [6000, 300, 600, 150], w: [2600, 500, 900, 200]}),       // 8,600 IOPS, worst p99 500
  ...job("qd8", {oio: 8, r: [28000, 900, 1800, 250], w: [12000, 1400, 2500, 300]}),  // 40,000 IOPS, worst p99 1,400
  ...job("qd32", {oio: 32, r: [42000, 1800, 4000, 700], w: [18000, 2600, 5000, 800]}), // 60,000 IOPS, worst p99 2,600
  // never evidence: a synthetic job and a four-drive array, both "better"
  ...job("synthetic", {oio: 64, r: [60000, 500, 800, 300], w: [30000, 600, 900, 300], source: "synthetic"}),
  ...job("raid0x4", {oio: 128, r: [110000, 900, 1500, 500], w: [50000, 1000, 1600, 500], layout: "raid0_x4", count: 4})
];
const DEVICE = {device_id: "d", spec_rand_read_iops: 500000, spec_rand_write_iops: 200000};
const at = (over = {}) => ({read_pct: 70, block_kib: 8, latency_target_ms: 2, statistic: "p99", ...over});

test("fio jobs: total IOPS, worst direction's percentiles, IO-weighted mean", () => {
  const j = fioJobs(CURVE).find((x) => x.fio_job_id === "qd1");
  assert.equal(j.iops, 8600);
  assert.equal(j.p99, 500);
  assert.equal(j["p99.9"], 900);
  near(j.mean, (6000 * 150 + 2600 * 200) / 8600); // 165.116 us
  // interim reports, aggregates and failed jobs never count
  const extra = fioJobs([...job("x", {oio: 1, r: [1, 1, 1, 1]}).map((r) => ({...r, is_interim: true})),
                         ...job("y", {oio: 1, r: [1, 1, 1, 1]}).map((r) => ({...r, error_code: 5}))]);
  assert.equal(extra.length, 0);
});

test("level 1: the highest load whose p99 stays within the target, never a synthetic or array job", () => {
  const e = deviceEvidence(DEVICE, {jobs: fioJobs(CURVE)}, at());
  assert.equal(e.level, 1);
  assert.equal(e.latency.status, "met");
  assert.equal(e.iops_per_drive, 40000); // qd8: 1,400 us <= 2,000 us; qd32: 2,600 us > 2,000 us
  assert.equal(e.latency.value_us, 1400);
  assert.deepEqual(e.points.map((p) => [p.outstanding_ios, p.meets]), [[1, true], [8, true], [32, false]]);
  assert.ok(e.excluded.some((x) => /synthetic/.test(x)) && e.excluded.some((x) => /multi-drive/.test(x)));
  near(e.mbps_per_drive, (40000 * 8 * 1024) / 1e6); // 327.68 MB/s: the IOPS figure at this block size
  // any target works, not only the warehouse's fixed ones
  assert.equal(deviceEvidence(DEVICE, {jobs: fioJobs(CURVE)}, at({latency_target_ms: 2.6})).iops_per_drive, 60000);
  assert.equal(deviceEvidence(DEVICE, {jobs: fioJobs(CURVE)}, at({latency_target_ms: 0.5})).iops_per_drive, 8600);
});

test("level 1 on the other statistics: p99.9 and the IO-weighted mean", () => {
  assert.equal(deviceEvidence(DEVICE, {jobs: fioJobs(CURVE)}, at({statistic: "p99.9"})).iops_per_drive, 8600); // qd8 p99.9 2,500 > 2,000
  // qd32 mean = (42,000 x 700 + 18,000 x 800) / 60,000 = 730 us; qd8 = (28,000 x 250 + 12,000 x 300) / 40,000 = 265 us
  near(fioJobs(CURVE).find((x) => x.fio_job_id === "qd32").mean, 730);
  assert.equal(deviceEvidence(DEVICE, {jobs: fioJobs(CURVE)}, at({statistic: "mean", latency_target_ms: 0.7})).iops_per_drive, 40000);
  assert.equal(deviceEvidence(DEVICE, {jobs: fioJobs(CURVE)}, at({statistic: "mean", latency_target_ms: 0.73})).iops_per_drive, 60000);
});

test("level 1: the read share within the documented tolerance counts, the nearest one wins", () => {
  assert.equal(READ_PCT_TOLERANCE, 5);
  assert.equal(deviceEvidence(DEVICE, {jobs: fioJobs(CURVE)}, at({read_pct: 67})).level, 1);
  assert.equal(deviceEvidence(DEVICE, {jobs: fioJobs(CURVE)}, at({read_pct: 75})).level, 1);
  assert.notEqual(deviceEvidence(DEVICE, {jobs: fioJobs(CURVE)}, at({read_pct: 76})).level, 1);
});

test("level 1: a target no measured load meets is 'not met', not a fall-back to the spec sheet", () => {
  const e = deviceEvidence(DEVICE, {jobs: fioJobs(CURVE)}, at({latency_target_ms: 0.4}));
  assert.equal(e.level, 1);
  assert.equal(e.latency.status, "not_met");
  assert.equal(e.iops_per_drive, null);
  assert.match(e.latency.text, /lowest p99 measured is 500 µs \(1 outstanding IO\)/);
});

// Level 2: 50 % and 100 % reads at 8 KiB; 70 % reads at 4 and 16 KiB (p99 target 1 ms).
const SHARES = [
  ...job("r50", {read: 50, oio: 16, r: [15000, 800, 1, 1], w: [15000, 900, 1, 1]}),   // 30,000 within 1 ms
  ...job("r100", {read: 100, oio: 16, r: [60000, 700, 1, 1]}),                          // 60,000 within 1 ms
  ...job("b4", {read: 70, bs: 4, oio: 16, r: [35000, 600, 1, 1], w: [15000, 800, 1, 1]}),  // 50,000 at 4 KiB
  ...job("b16", {read: 70, bs: 16, oio: 16, r: [14000, 700, 1, 1], w: [6000, 950, 1, 1]})  // 20,000 at 16 KiB
];

test("level 2: per-IO time interpolated in block size between the sizes measured around it", () => {
  const e = deviceEvidence({device_id: "d"}, {jobs: fioJobs(SHARES)}, at({latency_target_ms: 1}));
  // w = (8 - 4) / (16 - 4) = 1/3; 1 / ((2/3) / 50,000 + (1/3) / 20,000) = 1 / 3e-5 = 33,333.3
  assert.equal(e.level, 2);
  assert.equal(e.latency.status, "met");
  near(e.iops_per_drive, 100000 / 3);
  assert.match(e.latency.text, /block size/);
});

test("level 2: per-IO time blended by the mix between the read shares measured around it", () => {
  const shares = fioJobs(SHARES).filter((j) => j.read_pct !== 70);
  const e = deviceEvidence({device_id: "d"}, {jobs: shares}, at({read_pct: 80, latency_target_ms: 1}));
  // w = (80 - 50) / (100 - 50) = 0.6; 1 / (0.4 / 30,000 + 0.6 / 60,000) = 42,857.1
  assert.equal(e.level, 2);
  near(e.iops_per_drive, 1 / (0.4 / 30000 + 0.6 / 60000));
  near(harmonicLerp(80, 50, 30000, 100, 60000), 42857.142857);
  assert.match(e.latency.text, /read share/);
  // With the 70 % curves too, the nearest share below 80 % is 70 % (itself interpolated in block
  // size to 33,333): 1 / ((2/3) / 33,333.3 + (1/3) / 60,000) = 39,130.4
  near(deviceEvidence({device_id: "d"}, {jobs: fioJobs(SHARES)}, at({read_pct: 80, latency_target_ms: 1})).iops_per_drive, 39130.434783);
});

test("level 2 never extrapolates: outside the measured range it says so and falls through", () => {
  const e = deviceEvidence({device_id: "d", spec_rand_read_iops: 100000, spec_rand_write_iops: 50000}, {jobs: fioJobs(SHARES)},
                           at({block_kib: 32, latency_target_ms: 1}));
  assert.equal(e.level, 4);
  assert.equal(e.latency.status, "unverified");
  assert.ok(e.notes.some((n) => /not extrapolated/.test(n)), e.notes.join(" | "));
});

// Level 3: the published rows of the Intel P3700 800 GB and the 15k HDD (tests/js/sizing-scenario.json).
const SCENARIO = JSON.parse(readFileSync(new URL("./sizing-scenario.json", import.meta.url)));
const devices = Object.fromEntries(SCENARIO.devices.map((d) => [d.device_id, d]));
const evidence = (id, over) => deviceEvidence(devices[id], {jobs: fioJobs(SCENARIO.fio_points), published: SCENARIO.published}, at(over));

test("level 3: Little's law at a known depth satisfies a mean target", () => {
  // 11,000 IOPS at 1 outstanding IO: mean = 1 / 11,000 s = 90.9 us <= 2 ms; 193,000 at 512: 2.653 ms > 2 ms
  const e = evidence("intel_p3700_800gb", {statistic: "mean"});
  assert.deepEqual([e.level, e.latency.status, e.iops_per_drive], [3, "met", 11000]);
  near(e.latency.value_us, 1e6 / 11000);
  // with 3 ms allowed, 512 / 193,000 = 2.653 ms qualifies
  const loose = evidence("intel_p3700_800gb", {statistic: "mean", latency_target_ms: 3});
  assert.deepEqual([loose.latency.status, loose.iops_per_drive], ["met", 193000]);
  // already at one IO in flight the mean is 90.9 us: a 50 us mean target is not met
  assert.equal(evidence("intel_p3700_800gb", {statistic: "mean", latency_target_ms: 0.05}).latency.status, "not_met");
});

test("level 3: a percentile target stays unverified; the figure is the highest load whose mean fits", () => {
  const e = evidence("intel_p3700_800gb", {statistic: "p99"});
  assert.deepEqual([e.level, e.latency.status, e.iops_per_drive], [3, "unverified", 11000]);
  assert.match(e.latency.text, /only the mean latency, not the p99/);
  assert.ok(e.excluded.some((x) => /multi-drive/.test(x)), "RAID and four-drive figures are not per-drive figures");
});

test("level 3: a maximum over 1-512 outstanding IOs has no known depth: bound 512 / IOPS, unverified", () => {
  const hdd = SCENARIO.published.find((r) => r.device_id === "fujitsu_sas12g_hdd_450gb_15k" && r.profile_id === "database");
  assert.equal(maxDepthOf(hdd), 512);
  const e = evidence("fujitsu_sas12g_hdd_450gb_15k", {statistic: "p99"});
  assert.deepEqual([e.level, e.latency.status, e.iops_per_drive], [3, "unverified", 864]);
  near(e.latency.bound_us, (512 / 864) * 1e6); // 592.6 ms: the "near 0.6 s"
  assert.match(e.latency.text, /between 1\.16 ms and 512 \/ 864 = 593 ms/);
  // a mean target looser than even the worst case is met whatever the depth was
  assert.equal(evidence("fujitsu_sas12g_hdd_450gb_15k", {statistic: "mean", latency_target_ms: 600}).latency.status, "met");
  assert.equal(evidence("fujitsu_sas12g_hdd_450gb_15k", {statistic: "mean", latency_target_ms: 2}).latency.status, "unverified");
});

test("level 4: the spec sheet never satisfies a latency target, whatever the target", () => {
  for (const statistic of ["p99", "p99.9", "mean"]) {
    for (const ms of [0.001, 2, 100000]) {
      const e = evidence("samsung_850pro", {statistic, latency_target_ms: ms});
      assert.deepEqual([e.level, e.latency.status], [4, "unverified"]);
      near(e.iops_per_drive, 1 / (0.7 / 100000 + 0.3 / 90000)); // 96,774.2
    }
  }
  near(specIops(devices.samsung_pm1725, 0.7), 312500);
});

test("issue #14 scenario: per-drive IOPS and latency status of every device, worked by hand", () => {
  const got = Object.fromEntries(SCENARIO.devices.filter((d) => d.device_capacity_gb > 0)
    .map((d) => [d.device_id, evidence(d.device_id)]).map(([id, e]) => [id, [e.level, e.latency.status, e.iops_per_drive && Math.round(e.iops_per_drive)]]));
  assert.deepEqual(got, {
    vm_virtio_vda: [1, "met", 63918],            // 67 % reads (within 5 points), 8 KiB, thin-slice qd64: 42,736.7 + 21,181.6, p99 1,908.7 us
    intel_p3700_800gb: [3, "unverified", 11000], // Little's law: only a mean
    fujitsu_sas12g_hdd_450gb_15k: [3, "unverified", 864],
    fujitsu_sas12g_ssd_400gb_mlc: [3, "unverified", 64416],
    fusionio_iodrive2_1200gb: [3, "unverified", 49919],
    samsung_850pro: [4, "unverified", 96774],
    samsung_pm1633: [4, "unverified", 73077],
    samsung_pm1725: [4, "unverified", 312500],
    intel_p3700_1600gb: [0, "unverified", null],
    intel_p3700_2000gb: [0, "unverified", null],
    micron_9200pro_3800gb: [0, "unverified", null],
    hdd_15k_300gb: [0, "unverified", null]
  });
  const vm = evidence("vm_virtio_vda");
  near(vm.iops_per_drive, 63918.216356);
  near(vm.latency.value_us, 1908.736);
});

test("issue #14 scenario: the answer is the VM disk (the only verified row), not 81 spec-sheet SATA drives", () => {
  const scenario = {front_iops: 50000, read_pct: 70, block_kib: 8, capacity_tb: 20, growth_pct_per_year: 0, horizon_years: 5,
                    write_amplification: 1, raid: "10", hot_spares: 1};
  const rows = SCENARIO.devices.filter((d) => d.device_capacity_gb > 0).map((d) => ({d, e: evidence(d.device_id)}))
    .filter(({e}) => e.iops_per_drive !== null)
    .map(({d, e}) => ({label: d.device_id, result: sizeDevice(scenario, {
      device_id: d.device_id, capacity_tb: d.device_capacity_gb / 1000, iops_per_drive: e.iops_per_drive, mbps_per_drive: e.mbps_per_drive,
      price_usd: d.price_usd, dwpd: d.dwpd, endurance_years: d.endurance_years, latency_status: e.latency.status})}));
  const ranked = rankResults(rows, (r) => r.result);
  assert.deepEqual(ranked.map((r) => [r.label, r.result.total_drives, r.result.latency_status]), [
    ["vm_virtio_vda", 147, "met"],
    ["samsung_850pro", 81, "unverified"],   // $17,415: the old top answer, now after every verified row
    ["samsung_pm1633", 43, "unverified"],   // $30,186
    ["samsung_pm1725", 29, "unverified"],   // $54,549
    ["fusionio_iodrive2_1200gb", 35, "unverified"],
    ["intel_p3700_800gb", 51, "unverified"],
    ["fujitsu_sas12g_hdd_450gb_15k", 91, "unverified"],
    ["fujitsu_sas12g_ssd_400gb_mlc", 101, "unverified"]
  ]);
  const vm = ranked[0].result;
  assert.deepEqual([vm.binding, vm.constraints.endurance.status, vm.cost_usd, vm.rank_class], ["capacity", "unknown", null, 1]);
  near(vm.required_dwpd, 0.5290507632);
  // The 850 PRO's endurance is unknown: never a number of drives "for endurance" (the old page printed 4)
  const pro = ranked[1].result;
  assert.equal(pro.drives.endurance, null);
  assert.equal(pro.constraints.endurance.status, "unknown");
});
