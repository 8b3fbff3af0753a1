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
