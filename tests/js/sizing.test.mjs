// The sizing formulas against hand-checked vectors (the page uses the same module).
import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {test} from "node:test";
import {sizeDevice} from "../../src/components/sizing.js";

const {vectors} = JSON.parse(readFileSync(new URL("./sizing-vectors.json", import.meta.url)));

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
        assert.ok(result.errors[field]?.includes(message), `${field}: ${result.errors[field]}`);
      }
      return;
    }
    assert.equal(result.ok, true, JSON.stringify(result.errors));
    assertSubset(result, v.expect, "result");
    assertFinite(result);
  });
}

test("absurd but valid input never yields NaN or Infinity", () => {
  const scenario = {front_iops: 1e9, read_pct: 0, block_kib: 16384, capacity_tb: 1e6, growth_pct_per_year: 1000,
                    horizon_years: 30, write_amplification: 20, raid: "6", hot_spares: 100};
  const result = sizeDevice(scenario, {capacity_tb: 0.001, iops_per_drive: 1e-6, mbps_per_drive: 1e-6, dwpd: 1e-6, price_usd: 1e-6});
  assert.equal(result.ok, true);
  assertFinite(result);
});

test("the summary names the binding constraint and the headroom", () => {
  const v = vectors.find((x) => x.name.startsWith("capacity-bound"));
  const r = sizeDevice(v.scenario, v.device);
  assert.match(r.summary, /^capacity-bound: 28 drives give 126x the IOPS you need, 257x the throughput you need, 10\.5x the endurance you need$/);
});

// --- figures from warehouse rows ---------------------------------------------------------
import {ioPerNewOrder, perDriveFigures, specIops} from "../../src/components/sizing-data.js";

const workload = {read_pct: 67, block_kib: 8, latency_target_ms: 1, latency_basis: "p99"};
const cap = (over) => ({device_id: "d", read_pct: 67, block_size_kib: 8, data_device_count: 1, array_layout: "single",
                        latency_basis: "p99", mib_per_s: 100, provenance: "run r", run_id: "r", ...over});

test("measured IOPS: the highest within the latency target, never one above it", () => {
  const rows = [
    cap({capability_kind: "measured_within_latency", latency_target_us: 500, iops: 40000}),
    cap({capability_kind: "measured_within_latency", latency_target_us: 1000, iops: 60000}),
    cap({capability_kind: "measured_within_latency", latency_target_us: 2000, iops: 90000}),
    cap({capability_kind: "measured_within_latency", latency_target_us: 1000, iops: 99999, latency_basis: "mean"}),
    cap({capability_kind: "measured_within_latency", latency_target_us: 1000, iops: 77777, data_device_count: 4, array_layout: "raid0_x4"})
  ];
  const f = perDriveFigures({device_id: "d"}, rows, workload);
  assert.equal(f.iops_source, "measured");
  assert.equal(f.iops_per_drive, 60000);
});

test("falls back to published maxima, then the spec sheet, and says so", () => {
  const published = perDriveFigures({device_id: "d"}, [cap({capability_kind: "published_maximum", iops: 864})], workload);
  assert.deepEqual([published.iops_source, published.iops_per_drive], ["published", 864]);
  const device = {device_id: "d", spec_rand_read_iops: 100000, spec_rand_write_iops: 50000};
  const spec = perDriveFigures(device, [], workload);
  assert.equal(spec.iops_source, "spec-sheet");
  // 1 / (0.67 / 100000 + 0.33 / 50000) = 75187.97
  assert.ok(Math.abs(spec.iops_per_drive - 75187.9699) < 1e-3);
  assert.equal(perDriveFigures({device_id: "d"}, [], workload).iops_source, "none");
  assert.equal(specIops({spec_rand_read_iops: 5}, 1), 5);
});

test("IO per New-Order: median of the runs that have both figures", () => {
  const {rows, median} = ioPerNewOrder([
    {new_order_tpm: 6000, data_read_iops: 500, data_write_iops: 500},   // 1000 / 100 = 10
    {new_order_tpm: 12000, data_read_iops: 1000, data_write_iops: 2000}, // 3000 / 200 = 15
    {new_order_tpm: 6000, io_per_new_order: 30},
    {new_order_tpm: 6000, data_read_iops: null, data_write_iops: 10}
  ]);
  assert.equal(rows.length, 3);
  assert.equal(median, 15);
});
