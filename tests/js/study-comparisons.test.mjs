// The Compare page's "What the studies compared" tables: grouping of the warehouse's condition
// quotients and selection of its sweep summaries. Hand-made mart rows, so each expectation can be
// checked by eye (the marts' own numbers are tested in dbt).
import assert from "node:assert/strict";
import {test} from "node:test";
import {conditionSummaries, pairText, parseConditions, sideText, sweepSummaries} from "../../src/components/study-comparisons.js";

test("condition lists read as objects, n/a and malformed parts left out", () => {
  assert.deepEqual(parseConditions("page_size_kib=4; db_config_id=n/a; junk; buffer_pool_gib=12"),
    {page_size_kib: "4", buffer_pool_gib: "12"});
  assert.deepEqual(parseConditions(null), {});
  assert.equal(sideText("page_size_kib=4; db_config_id=percona"), "page KiB 4, config percona");
});

/** One fct_condition_quotients row. */
const cq = (over) => ({
  device_id: "pm1725", varied_condition: "page_size", condition_a: "page_size_kib=4", condition_b: "page_size_kib=16",
  metric: "tpmc", study_id: "samsung", host_id: null, higher_is_better: true, quotient: 2, quotient_low: 1.9, quotient_high: 2.1,
  shared_conditions: "buffer_pool_gib=12; connections=100", is_approx: false, provenance: "Fig 3", ...over
});

test("pairs of one device and condition group over the held-equal settings", () => {
  const rows = [
    cq({quotient: 2, shared_conditions: "buffer_pool_gib=12; connections=100"}),
    cq({quotient: 8, quotient_low: 7.2, quotient_high: 8.8, shared_conditions: "buffer_pool_gib=24; connections=100"}),
    // the other orientation of the same pair: dropped, so nothing is listed twice
    cq({condition_a: "page_size_kib=16", condition_b: "page_size_kib=4", quotient: 0.5}),
    // another device, not chosen
    cq({device_id: "hdd", quotient: 3}),
    // no quotient: never enters min, max or mean
    cq({quotient: null})
  ];
  const [only, ...rest] = conditionSummaries(rows, ["pm1725"]);
  assert.equal(rest.length, 0);
  assert.equal(only.pairs, 2);
  assert.equal(only.quotient_min, 2);
  assert.equal(only.quotient_max, 8);
  assert.ok(Math.abs(only.quotient_geomean - 4) < 1e-12, String(only.quotient_geomean));
  assert.equal(only.side_a, "page KiB 4");
  assert.equal(only.side_b, "page KiB 16");
  assert.equal(only.where, "study: samsung");
  // buffer pool took 2 values, connections 1: only the first is "varying"
  assert.deepEqual(only.varying, [{field: "buffer_pool_gib", count: 2}]);
  // widest half-range: (2.1-1.9)/2/2 = 5 %, (8.8-7.2)/2/8 = 10 %
  assert.ok(Math.abs(only.precision_pct - 10) < 1e-9, String(only.precision_pct));
});

test("precision is unknown when any pair lacks bounds, and metrics can be filtered and ordered", () => {
  const rows = [cq({metric: "tpmc"}), cq({metric: "p95_latency_ms", quotient_low: null}), cq({metric: "cpu"})];
  const out = conditionSummaries(rows, ["pm1725"], {metrics: ["tpmc", "p95_latency_ms"], metricOrder: ["p95_latency_ms", "tpmc"]});
  assert.deepEqual(out.map((r) => r.metric), ["p95_latency_ms", "tpmc"]);
  assert.equal(out[0].precision_pct, null);
  assert.ok(Math.abs(out[1].precision_pct - 5) < 1e-9, String(out[1].precision_pct));
});

test("studies and hosts stay apart", () => {
  const out = conditionSummaries([cq({}), cq({study_id: null, host_id: "lab-vm"})], ["pm1725"]);
  assert.deepEqual(out.map((r) => r.where).sort(), ["host: lab-vm", "study: samsung"]);
});

/** One fct_sweep_quotient_summaries row. */
const ss = (over) => ({
  comparison_family: "device", device_a_id: "pm1725", device_b_id: "hdd", side_a: "pm1725", side_b: "hdd", metric: "tpmc",
  study_id: "samsung", host_id: null, fixed_conditions: "source_kind=published; db_config_id=c3; study_id=samsung", ...over
});

test("device pairs follow the chosen order, condition pairs keep one orientation", () => {
  const rows = [
    ss({}),                                                   // pm1725 / hdd: kept when pm1725 is chosen first
    ss({device_a_id: "hdd", device_b_id: "pm1725"}),          // the reverse: dropped
    ss({device_b_id: "other"}),                               // a device not chosen: dropped
    ss({comparison_family: "condition", device_a_id: "hdd", device_b_id: "hdd", side_a: "page 16", side_b: "page 4"}), // wrong orientation
    ss({comparison_family: "condition", device_a_id: "hdd", device_b_id: "hdd", side_a: "page 4", side_b: "page 16"})
  ];
  const out = sweepSummaries(rows, ["pm1725", "hdd"]);
  assert.equal(out.length, 2);
  assert.deepEqual(out.map((r) => r.comparison_family), ["condition", "device"]);
  const device = out.find((r) => r.comparison_family === "device");
  assert.equal(device.device_b_id, "hdd");
  // source kind, study and host are said elsewhere: "fixed" lists only the real conditions
  assert.equal(device.fixed, "config c3");
  assert.equal(device.where, "study: samsung");
  // choosing the devices the other way round picks the other orientation
  assert.deepEqual(sweepSummaries(rows, ["hdd", "pm1725"]).filter((r) => r.comparison_family === "device")
    .map((r) => [r.device_a_id, r.device_b_id]), [["hdd", "pm1725"]]);
});

test("a pair that varies one field reads as its two values, with the unit", () => {
  assert.equal(pairText("page_size_kib=4", "page_size_kib=16"), "4 KiB vs 16 KiB");
  assert.equal(pairText("db_config_id=mysql_config_1", "db_config_id=mysql_config_2"), "mysql_config_1 vs mysql_config_2");
  // two fields on a side: each side in full
  assert.equal(pairText("page_size_kib=4; db_config_id=a", "page_size_kib=16; db_config_id=b"), "page KiB 4, config a vs page KiB 16, config b");
  assert.equal(conditionSummaries([cq({})], ["pm1725"])[0].pair, "4 KiB vs 16 KiB");
});
