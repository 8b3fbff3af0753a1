// The sizing formulas against hand-worked vectors (docs/sizing.md; the page uses the same module),
// the bounds and their messages, the number formats, the TPC-C factor and the chart's points.
import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {test} from "node:test";
import {CONSTRAINTS, DEVICE_FIELDS, RAID_LEVELS, SCENARIO_FIELDS, rankResults, scaleWorkload, sizeDevice, usableCapacityTb,
        validateFigures, validateScenario} from "../../src/components/sizing.js";
import {coveragePoints, ioPerNewOrder} from "../../src/components/sizing-data.js";
import {count, latency, money, sig, times} from "../../src/components/sizing-format.js";
import {csvText} from "../../src/components/sizing-form.js";

const {vectors} = JSON.parse(readFileSync(new URL("./sizing-vectors.json", import.meta.url)));

/** The result with each constraint's headroom and status flattened (headroom_iops, endurance_status ...). */
function flat(result) {
  const out = {...result};
  for (const c of CONSTRAINTS) {
    out[`headroom_${c}`] = result.constraints?.[c]?.headroom;
    out[`${c}_status`] = result.constraints?.[c]?.status;
  }
  return out;
}

function assertSubset(actual, expected, path) {
  for (const [key, want] of Object.entries(expected)) {
    const got = actual?.[key];
    if (want && typeof want === "object") assertSubset(got, want, `${path}.${key}`);
    else if (typeof want === "number") {
      assert.equal(typeof got, "number", `${path}.${key} is ${got}`);
      assert.ok(Math.abs(got - want) <= 1e-6 * Math.max(1, Math.abs(want)), `${path}.${key}: ${got} != ${want}`);
    } else assert.equal(got, want, `${path}.${key}`);
  }
}

function assertFinite(value, path = "result") {
  if (typeof value === "number") assert.ok(Number.isFinite(value), `${path} is ${value}`);
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) assertFinite(v, `${path}.${k}`);
}

for (const v of vectors) {
  test(v.name, () => {
    const result = sizeDevice(v.scenario, v.device);
    if (v.expect_errors) {
      assert.equal(result.ok, false);
      for (const [field, message] of Object.entries(v.expect_errors)) {
        assert.ok(result.errors[field]?.startsWith(message), `${field}: ${result.errors[field]}`);
      }
      return;
    }
    assert.equal(result.ok, true, JSON.stringify(result.errors));
    assertSubset(flat(result), v.expect, "result");
    assertFinite(result);
  });
}

test("unknown endurance is never a drive count and never met (the old page printed 4 'for endurance')", () => {
  const v = vectors.find((x) => x.name.includes("850 PRO"));
  const r = sizeDevice(v.scenario, v.device);
  assert.equal(r.drives.endurance, null);
  assert.equal(r.constraints.endurance.status, "unknown");
  assert.ok(r.required_dwpd > 0.5 && r.required_dwpd < 0.53, `required DWPD ${r.required_dwpd}`);
  assert.match(r.summary, /endurance unknown/);
});

test("the summary names the binding constraint and the headroom of the others", () => {
  const v = vectors.find((x) => x.name.startsWith("capacity-bound"));
  const r = sizeDevice(v.scenario, v.device);
  assert.equal(r.summary, "capacity-bound: 28 drives give 126× the IOPS you need, 256× the throughput you need, 10.5× the endurance you need");
});

test("absurd but bounded input never yields NaN or Infinity", () => {
  const scenario = {front_iops: 1e8, read_pct: 0, block_kib: 16384, capacity_tb: 1e6, growth_pct_per_year: 200,
                    horizon_years: 30, daily_write_tb: 1e6, write_amplification: 20, raid: "6", raid_group_size: 64, hot_spares: 1000};
  const result = sizeDevice(scenario, {capacity_tb: 0.001, iops_per_drive: 1, mbps_per_drive: 0.1, dwpd: 0.01, price_usd: 1e7, endurance_years: 0.5});
  assert.equal(result.ok, true);
  assertFinite(result);
  assert.ok(result.total_drives > 1e12);
  for (const text of [count(result.total_drives), money(result.cost_usd), times(result.constraints.iops.headroom), sig(result.usable_tb)]) {
    assert.doesNotMatch(text, /NaN|Infinity|undefined|null|e\+/, text);
  }
});

test("every bound has a message in the words on screen", () => {
  assert.deepEqual(validateFigures({capacity_tb: 1, iops_per_drive: 0.001}), {iops_per_drive: "IOPS per drive must be at least 1"});
  assert.deepEqual(validateFigures({capacity_tb: 1e12, iops_per_drive: 10}), {capacity_tb: "Capacity per drive must be at most 1000"});
  assert.equal(validateFigures({capacity_tb: 1, iops_per_drive: 10, dwpd: "lots"}).dwpd, "DWPD must be a number");
  assert.deepEqual(validateFigures({capacity_tb: 1, iops_per_drive: 10, dwpd: null, price_usd: null}), {});
  const s = {front_iops: 1, read_pct: 50, block_kib: 8, capacity_tb: 1e12, growth_pct_per_year: 0, horizon_years: 0, write_amplification: 1, raid: "10", hot_spares: 0};
  assert.equal(validateScenario(s).capacity_tb, "Capacity needed now must be at most 1,000,000");
  assert.equal(validateScenario({...s, capacity_tb: 1, raid: "5", raid_group_size: 2}).raid_group_size, "RAID group size must be at least 3 for RAID 5");
  for (const spec of [...Object.values(SCENARIO_FIELDS), ...Object.values(DEVICE_FIELDS)]) {
    assert.ok(Number.isFinite(spec.min) && Number.isFinite(spec.max) && spec.min < spec.max, spec.label);
  }
});

test("ranking: latency met and complete, then met with unknowns, then unverified; cheapest first", () => {
  const rows = [
    {label: "unverified cheap", rank_class: 2, cost_usd: 1, total_drives: 1},
    {label: "met, price unknown", rank_class: 1, cost_usd: null, total_drives: 5},
    {label: "met, dear", rank_class: 0, cost_usd: 900, total_drives: 9},
    {label: "met, cheap", rank_class: 0, cost_usd: 100, total_drives: 9},
    {label: "met, endurance unknown, priced", rank_class: 1, cost_usd: 50, total_drives: 9}
  ];
  assert.deepEqual(rankResults(rows).map((r) => r.label),
    ["met, cheap", "met, dear", "met, endurance unknown, priced", "met, price unknown", "unverified cheap"]);
});

test("2x the workload doubles IOPS and typed host writes, not capacity", () => {
  const s = {front_iops: 100, daily_write_tb: 3, capacity_tb: 7};
  assert.deepEqual(scaleWorkload(s, 2), {front_iops: 200, daily_write_tb: 6, capacity_tb: 7});
  assert.equal("daily_write_tb" in scaleWorkload({front_iops: 1}, 2), false);
});

test("numbers print at sensible significant digits and never as NaN / Infinity / null", () => {
  assert.equal(sig(63918.216), "63,900");
  assert.equal(sig(0.52905), "0.529");
  assert.equal(sig(2e12), "2 trillion");
  assert.equal(sig(1.234e9), "1.23 billion");
  assert.equal(sig(3.4e20), "3.4 × 10^20");
  assert.equal(count(147), "147");
  assert.equal(count(2000000000000), "2 trillion");
  assert.equal(money(17415), "$17,415");
  assert.equal(money(2.9234), "$2.92");
  assert.equal(money(null), "price unknown");
  assert.equal(times(1.0035), "1.00×");
  assert.equal(times(0.996), "0.99×");
  assert.equal(times(143.57), "143×");
  assert.equal(latency(1908.7), "1.91 ms");
  assert.equal(latency(177), "177 µs");
  for (const bad of [NaN, Infinity, -Infinity, null, undefined, "x"]) {
    for (const f of [sig, count, money, times, latency]) assert.doesNotMatch(f(bad), /NaN|Infinity|undefined|null/);
  }
});

test("IO per New-Order: a row with both figures counts as it is; split figures pair with the one matching rate", () => {
  const {rows, median, min, max, skipped} = ioPerNewOrder([
    {run_id: "r", study_id: "s", host_id: "h", device_id: "d", db_config_id: "a", warehouses: 500, new_order_tpm: 6000, data_read_iops: 500, data_write_iops: 500, provenance: "both"}, // 1000 / 100 = 10
    // IOPS without a rate, paired with the only rate of the same test (Samsung's Figure 7 / Figure 6 shape)
    {run_id: "r", study_id: "s", host_id: "h", device_id: "d", db_config_id: "b", warehouses: 500, connections: null, data_read_iops: 1000, data_write_iops: 2000, provenance: "fig7"},
    {run_id: "r", study_id: "s", host_id: "h", device_id: "d", db_config_id: "b", warehouses: 500, connections: 100, new_order_tpm: 12000, provenance: "fig6"}, // 3000 / 200 = 15
    {run_id: "r", study_id: "s", host_id: "h", device_id: "d", db_config_id: "b", warehouses: 500, connections: 50, new_order_tpm: null, provenance: "chart"},
    // two candidate rates: ambiguous, left out and said so
    {run_id: "r", study_id: "s", host_id: "h", device_id: "d", db_config_id: "c", warehouses: 500, data_read_iops: 1, data_write_iops: 1, provenance: "x"},
    {run_id: "r", study_id: "s", host_id: "h", device_id: "d", db_config_id: "c", warehouses: 500, connections: 1, new_order_tpm: 60, provenance: "y"},
    {run_id: "r", study_id: "s", host_id: "h", device_id: "d", db_config_id: "c", warehouses: 500, connections: 2, new_order_tpm: 120, provenance: "z"},
    {new_order_tpm: 6000, io_per_new_order: 30, provenance: "warehouse figure"},
    {new_order_tpm: 6000, data_read_iops: 5000, data_write_iops: 5000, source_kind: "synthetic", provenance: "never"}
  ]);
  assert.deepEqual(rows.map((r) => r.factor), [10, 15, 30]);
  assert.deepEqual([median, min, max], [15, 10, 30]);
  assert.deepEqual(rows[1].sources, ["IOPS: fig7", "New-Order rate: fig6"]);
  assert.equal(rows[1].read_share, 1 / 3);
  assert.equal(skipped.length, 1);
  assert.match(skipped[0].reason, /2 New-Order rates/);
});

test("IO per New-Order on the bundled Samsung rows: 36.0 and 75.0, median 55.5 (docs/sizing.md)", () => {
  const {tpcc} = JSON.parse(readFileSync(new URL("./sizing-scenario.json", import.meta.url)));
  const {rows, median, min, max} = ioPerNewOrder(tpcc);
  // Percona Config #A: (30,291 + 31,933) / (103,683.58 / 60) = 36.008; MySQL Config #3: (19,919 + 79,274) / (79,337.96 / 60) = 75.016
  assert.equal(rows.length, 2);
  assert.ok(Math.abs(min - 36.008016) < 1e-5 && Math.abs(max - 75.015541) < 1e-5, `${min} ${max}`);
  assert.ok(Math.abs(median - 55.511779) < 1e-5);
});

test("the chart has at most ~60 points per device however many drives (0.001 IOPS froze the page)", () => {
  const scenario = {raid: "10", read_pct: 70};
  const t0 = performance.now();
  const points = coveragePoints({capacity_tb: 0.001, iops_per_drive: 1}, scenario, {usableCapacityTb, RAID_LEVELS, maxDrives: 1e12});
  assert.ok(performance.now() - t0 < 50);
  assert.ok(points.length <= 62 && points.length > 10, `${points.length} points`);
  assert.equal(points[0].drives, 4);
  assert.ok(points.every((p) => p.drives % 2 === 0 && Number.isFinite(p.iops) && p.usable_tb > 0));
  assert.equal(points.at(-1).drives, 1e12);
});

test("CSV export quotes text and leaves unknown figures empty", () => {
  const text = csvText([{a: 'say "hi", ok', b: null, c: NaN, d: 3}], [["a", "A"], ["b", "B"], ["c", "C"], [(r) => r.d * 2, "D"]]);
  assert.equal(text, 'A,B,C,D\n"say ""hi"", ok",,,6\n');
});
