// The site's pure logic (src/components/compare-logic.js, state.js, fio-data.js), without a
// browser: quotients, comparison keys, differing conditions, config diffs, URL state.
import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {join} from "node:path";
import {describe, test} from "node:test";
import {ROOT} from "./harness.mjs";
import {
  TPCC_CONDITIONS, configDiff, conditionKey, differingConditions, labelSeries, quotientMatrix, ratio, setupOf, sideBySide
} from "../../src/components/compare-logic.js";
import {shapeMeasured, shapePublished} from "../../src/components/fio-data.js";

// The published Samsung figures, as bundled in data/raw (the quotients must reproduce the
// ratios the study printed).
function samsungRows() {
  const path = join(ROOT, "data", "raw", "published", "vendor-studies-2016-2017", "tpcc_results.csv");
  const [header, ...lines] = readFileSync(path, "utf-8").trim().split("\n");
  const cols = header.split(",");
  const rows = [];
  for (const line of lines) {
    const cells = line.split(","); // the columns used here precede any quoted cell
    const r = Object.fromEntries(cols.map((c, i) => [c, cells[i]]));
    if (r.metric !== "new_order_tpm" || r.host_id !== "samsung_quad_socket" || r.value === "") continue;
    rows.push({study_id: r.study_id, host_id: r.host_id, device_label: r.device_id, db_config_id: r.db_config_id,
      db_server: r.db_server, warehouses: +r.warehouses, connections: +r.connections, buffer_pool_gib: +r.buffer_pool_gb,
      new_order_tpm: +r.value, is_approx: r.approx === "true"});
  }
  return rows.map((r) => ({...r, setup: setupOf(r)}));
}

describe("quotient matrix", () => {
  const rows = samsungRows();
  const cellFor = (cells, a, b) => cells.find((c) => c.numerator === a && c.denominator === b);

  test("reproduces Samsung Table 1: NVMe / SATA SSD at 50 connections = 4.62", () => {
    const at50 = rows.filter((r) => r.connections === 50);
    const cell = cellFor(quotientMatrix(at50, {metric: "new_order_tpm", conditions: TPCC_CONDITIONS}), "samsung_pm1725", "samsung_850pro");
    assert.equal(cell.n, 1);
    assert.equal(cell.geomean.toFixed(2), "4.62");
  });

  test("reproduces Samsung Table 1: NVMe / SAS HDD at 100 connections = 180.35", () => {
    const at100 = rows.filter((r) => r.connections === 100);
    const cell = cellFor(quotientMatrix(at100, {metric: "new_order_tpm", conditions: TPCC_CONDITIONS}), "samsung_pm1725", "seagate_st600mp0005");
    assert.equal(cell.geomean.toFixed(2), "180.35");
  });

  test("never divides results measured under different conditions", () => {
    const a = {device_label: "A", setup: "host: h1", connections: 10, new_order_tpm: 100};
    const b = {device_label: "B", setup: "host: h2", connections: 10, new_order_tpm: 50};
    const c = {device_label: "B", setup: "host: h1", connections: 20, new_order_tpm: 50};
    assert.deepEqual(quotientMatrix([a, b, c], {metric: "new_order_tpm", conditions: TPCC_CONDITIONS}), []);
    const d = {device_label: "B", setup: "host: h1", connections: 10, new_order_tpm: 25};
    const cells = quotientMatrix([a, b, c, d], {metric: "new_order_tpm", conditions: TPCC_CONDITIONS});
    assert.equal(cellFor(cells, "A", "B").geomean, 4);
    assert.equal(cellFor(cells, "B", "A").geomean, 0.25);
  });

  test("geometric mean over several matched conditions, approximate figures flagged", () => {
    const rows2 = [
      {device_label: "A", connections: 1, v: 2}, {device_label: "B", connections: 1, v: 1},
      {device_label: "A", connections: 2, v: 8, is_approx: true}, {device_label: "B", connections: 2, v: 1}
    ];
    const cell = cellFor(quotientMatrix(rows2, {metric: "v", conditions: [["connections", "c"]]}), "A", "B");
    assert.equal(cell.n, 2);
    assert.ok(Math.abs(cell.geomean - 4) < 1e-12);
    assert.equal(cell.min, 2);
    assert.equal(cell.max, 8);
    assert.equal(cell.approx, true);
  });
});

describe("conditions", () => {
  test("null and undefined are the same 'not stated' in a comparison key", () => {
    assert.equal(conditionKey({a: null, b: 1}, ["a", "b"]), conditionKey({b: 1}, ["a", "b"]));
    assert.notEqual(conditionKey({a: 0, b: 1}, ["a", "b"]), conditionKey({b: 1}, ["a", "b"]));
  });

  test("differing conditions list what differs, including stated vs not stated", () => {
    const items = [
      {host: "h1", area: "256MiB", kind: ["measured"], same: "x"},
      {host: "h2", area: null, kind: ["published"], same: "x"}
    ];
    const out = differingConditions(items, [["host", "host"], ["area", "measurement area"], ["kind", "source"], ["same", "same"], ["absent", "absent"]]);
    assert.deepEqual(out.map((d) => d.field), ["host", "area", "kind"]);
    assert.deepEqual(out[1].values, ["256MiB", null]);
  });

  test("series labels name only the conditions that vary", () => {
    const rows = labelSeries([
      {device_label: "D1", setup: "study: s", warehouses: 500, connections: 10},
      {device_label: "D1", setup: "study: s", warehouses: 1000, connections: 20}
    ], {conditions: TPCC_CONDITIONS, exclude: ["connections"]});
    assert.deepEqual(rows.map((r) => r.series), ["D1 · 500 wh", "D1 · 1000 wh"]);
  });

  test("ratio refuses missing values and division by zero", () => {
    assert.equal(ratio(1, 0), null);
    assert.equal(ratio(null, 1), null);
    assert.equal(ratio(3, 2), 1.5);
  });
});

describe("side by side", () => {
  test("rows shared by at least two items, ratios to the first", () => {
    const rows = [
      {_item: 0, connections: 10, tpm: 100}, {_item: 1, connections: 10, tpm: 250},
      {_item: 1, connections: 10, tpm: 350}, {_item: 0, connections: 20, tpm: 5}
    ];
    const out = sideBySide([{name: "t", rows, keyFields: [["connections", "conn"]], metrics: [["tpm", "tpm", true]]}], 2);
    assert.equal(out.length, 1);
    assert.deepEqual(out[0].value, [100, 300]);
    assert.deepEqual(out[0].ratio, [1, 3]);
    assert.equal(out[0].values[1].length, 2);
    assert.equal(out[0].conditions, "conn 10");
  });
});

describe("config diff", () => {
  test("changed, only in A, only in B and same, values compared verbatim", () => {
    const rows = [
      {config_id: "a", parameter: "p1", value: "1"}, {config_id: "b", parameter: "p1", value: "2"},
      {config_id: "a", parameter: "p2", value: "x"},
      {config_id: "b", parameter: "p3", value: "y", is_inherited: true},
      {config_id: "a", parameter: "p4", value: "'ON'"}, {config_id: "b", parameter: "p4", value: "ON"},
      {config_id: "a", parameter: "p5", value: "z"}, {config_id: "b", parameter: "p5", value: "z"}
    ];
    const diff = Object.fromEntries(configDiff(rows, "a", "b").map((d) => [d.parameter, d.kind]));
    assert.deepEqual(diff, {p1: "changed", p2: "only_in_a", p3: "only_in_b", p4: "changed", p5: "same"});
    assert.equal(configDiff(rows, "a", "b").find((d) => d.parameter === "p3").inherited_b, true);
  });
});

describe("fio shaping", () => {
  test("read + write totals add IOPS, weight mean latency and drop percentiles", () => {
    const base = {run_id: "r", source_path: "f", job_name: "j", outstanding_ios: 4, device_id: "d"};
    const rows = shapeMeasured([
      {...base, direction: "read", iops: 300, bw_mib_per_s: 3, clat_mean_us: 100, clat_p99_us: 500},
      {...base, direction: "write", iops: 100, bw_mib_per_s: 1, clat_mean_us: 300, clat_p99_us: 900}
    ], (id) => id);
    const total = rows.find((r) => r.direction === "total");
    assert.equal(total.iops, 400);
    assert.equal(total.bw_mib_per_s, 4);
    assert.equal(total.clat_mean_us, 150);
    assert.equal(total.clat_p99_us, null);
  });

  test("published IO rows keep their provenance and are marked published", () => {
    const rows = shapePublished([{study_id: "s", device_id: "d", profile_id: "database", metric: "iops", metric_value: 10,
      outstanding_ios: 1, is_approx: true, provenance: "s: 001 text"}], (id) => `label ${id}`);
    assert.equal(rows[0].iops, 10);
    assert.equal(rows[0].source_kind, "published");
    assert.equal(rows[0].provenance, "s: 001 text");
    assert.equal(rows[0].device_label, "label d");
  });
});

describe("URL state", () => {
  test("setParams writes lists, drops defaults and keeps an explicit empty list", async () => {
    const calls = [];
    globalThis.location = {pathname: "/tpcc", search: "", hash: ""};
    globalThis.history = {state: null, replaceState: (_s, _t, url) => {
      calls.push(url);
      const u = new URL(url, "http://x");
      globalThis.location = {pathname: u.pathname, search: u.search, hash: u.hash};
    }};
    const {setParams, paramList, param} = await import("../../src/components/state.js");
    setParams({device: ["a", "b c"], x: "connections"}, {x: "connections"});
    assert.equal(calls.at(-1), "/tpcc?device=a&device=b+c");
    assert.deepEqual(paramList("device"), ["a", "b c"]);
    setParams({device: []}, {device: ["a"]});
    assert.deepEqual(paramList("device", ["a"]), []);
    setParams({device: ["a"]}, {device: ["a"]});
    assert.deepEqual(paramList("device", ["fallback"]), ["fallback"]);
    setParams({q: "select 1 -- & ?"});
    assert.equal(param("q"), "select 1 -- & ?");
    delete globalThis.location;
    delete globalThis.history;
  });
});

describe("large-warehouse defaults and page aggregates", () => {
  test("largestComparableGroup picks the group with most devices, then most load levels", async () => {
    const {largestComparableGroup} = await import("../../src/components/compare-logic.js");
    const row = (setup, device_id, connections) => ({setup, device_id, connections, warehouses: 100});
    const rows = [
      row("host: a", "d1", 1), row("host: a", "d1", 2), row("host: a", "d1", 4), row("host: a", "d1", 8),
      row("host: b", "d1", 1), row("host: b", "d2", 1), row("host: b", "d2", 2),
      row("host: c", "d3", 1), row("host: c", "d4", 1)
    ];
    const fields = ["setup", "warehouses"];
    // b and c both have two devices; b has two load levels, c one.
    assert.deepEqual(largestComparableGroup(rows, {fields, spread: "connections"}).map((r) => r.setup), ["host: b", "host: b", "host: b"]);
    assert.deepEqual(largestComparableGroup([], {fields, spread: "connections"}), []);
  });

  test("countBy counts in one pass; seriesForSelection keeps the selected results' series", async () => {
    const {countBy} = await import("../../src/components/data.js");
    const {seriesForSelection} = await import("../../src/components/tpcc-data.js");
    assert.deepEqual([...countBy([{d: "a"}, {d: "b"}, {d: "a"}], "d")], [["a", 2], ["b", 1]]);
    const series = [{tpcc_series_id: "s1", run_id: "r1"}, {tpcc_series_id: "s2", run_id: "r2"}, {tpcc_series_id: "s3", run_id: "r3"}];
    const picked = seriesForSelection(series, [{tpcc_series_id: "s2", run_id: "r2"}, {tpcc_series_id: null, run_id: "r3"}]);
    assert.deepEqual(picked.map((s) => s.tpcc_series_id), ["s2", "s3"]);
    assert.deepEqual(seriesForSelection(series, []), []);
  });

  test("a line chart hides its legend past MAX_LEGEND_SERIES series and says so", async () => {
    const {lineChart, MAX_LEGEND_SERIES} = await import("../../src/components/charts.js");
    const rows = (n) => Array.from({length: n}, (_, i) => ({x: 1, y: i, series: `s${i}`}));
    const spec = (n) => lineChart({rows: rows(n), title: "t", x: {field: "x", title: "x"}, y: {field: "y", title: "y"}});
    const legendOf = (s) => s.layer[0].encoding.color.legend;
    assert.ok(legendOf(spec(MAX_LEGEND_SERIES)));
    assert.equal(typeof spec(MAX_LEGEND_SERIES).title, "string");
    assert.equal(legendOf(spec(MAX_LEGEND_SERIES + 1)), null);
    assert.match(spec(MAX_LEGEND_SERIES + 1).title.subtitle, new RegExp(`^over ${MAX_LEGEND_SERIES} series: no legend`));
    // Specs past the limit differ only in their rows, so a filter change can update them in place.
    assert.deepEqual({...spec(MAX_LEGEND_SERIES + 1), data: null}, {...spec(MAX_LEGEND_SERIES + 5), data: null});
  });
});
