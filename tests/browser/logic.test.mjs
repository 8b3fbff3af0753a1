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
import * as compareLogic from "../../src/components/compare-logic.js";
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
    assert.deepEqual(rows.map((r) => r.conditions), ["500 wh", "1000 wh"]);
    // a measured result's host is its setup too: named once
    const hosts = labelSeries([{device_label: "D", setup: "host: h1", host_id: "h1"}, {device_label: "D", setup: "host: h2", host_id: "h2"}],
      {conditions: TPCC_CONDITIONS});
    assert.deepEqual(hosts.map((r) => r.conditions), ["h1", "h2"]);
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

  test("a line chart hides its device legend past MAX_LEGEND_SERIES devices and says so", async () => {
    const {lineChart, MAX_LEGEND_SERIES} = await import("../../src/components/charts.js");
    const rows = (n) => Array.from({length: n}, (_, i) => ({x: 1, y: i + 1, device_id: `d${i}`, device_label: `D${i}`}));
    const spec = (n) => lineChart({rows: rows(n), title: "t", x: {field: "x", title: "x"}, y: {field: "y", title: "y"}, yScale: "linear"});
    const legendOf = (s) => s.layer[1].encoding.color.legend;
    assert.ok(legendOf(spec(MAX_LEGEND_SERIES)));
    assert.equal(spec(MAX_LEGEND_SERIES).title.subtitle, undefined);
    assert.equal(legendOf(spec(MAX_LEGEND_SERIES + 1)), null);
    assert.match(spec(MAX_LEGEND_SERIES + 1).title.subtitle.join(" "), new RegExp(`^over ${MAX_LEGEND_SERIES} devices: no legend`));
    // Past the limit the colour comes from each row, so specs differ only in their rows and a
    // filter change can update the drawn chart in place.
    const shape = (s) => ({...s, data: null, usermeta: null});
    assert.deepEqual(shape(spec(MAX_LEGEND_SERIES + 1)), shape(spec(MAX_LEGEND_SERIES + 5)));
  });
});

describe("charts: colour, conditions, lines, scales, tooltips", () => {
  const chartsModule = import("../../src/components/charts.js");
  const colorOf = (id) => ({a: "#0072b2", b: "#e69f00"})[id] ?? "#999999";

  test("colour is the device: one legend entry per plotted device, in the device's colour", async () => {
    const {lineChart} = await chartsModule;
    const rows = [
      {device_id: "a", device_label: "A", setup: "study: s", db_config_id: "c1", x: 1, y: 10},
      {device_id: "a", device_label: "A", setup: "study: s", db_config_id: "c2", x: 1, y: 12},
      {device_id: "b", device_label: "B", setup: "study: s", db_config_id: "c1", x: 1, y: 20},
      {device_id: "c", device_label: "C", setup: "study: s", db_config_id: "c1", x: 1, y: null}
    ];
    const spec = lineChart({rows, title: "t", x: {field: "x", title: "x"}, y: {field: "y", title: "y"}, colorOf,
      conditions: [["setup", "study"], ["db_config_id", "config"]]});
    const color = spec.layer[1].encoding.color;
    // the scale reads each device's colour from its rows (the spec does not depend on the rows)
    assert.deepEqual(color.scale, {range: {field: "_color"}});
    assert.deepEqual([...new Set(spec.data.values.map((r) => `${r._device}=${r._color}`))].sort(), ["A=#0072b2", "B=#e69f00"], "C has no value: not drawn, not in the legend");
    // two devices of one colour side by side: an explicit domain and range (Vega would pair a
    // data-driven range by distinct colour)
    const same = lineChart({rows: rows.map((r) => ({...r, device_id: r.device_id === "b" ? "a2" : r.device_id})), title: "t",
      x: {field: "x", title: "x"}, y: {field: "y", title: "y"}, colorOf: (id) => (id === "a2" ? "#0072b2" : colorOf(id))});
    assert.deepEqual(same.layer[1].encoding.color.scale, {domain: ["A", "B"], range: ["#0072b2", "#0072b2"]});
    // The config differs between A's two series: it is the shape, not the colour; the study does not vary.
    assert.equal(spec.layer[1].encoding.shape.field, "_variant");
    assert.deepEqual([...new Set(spec.data.values.map((r) => r._variant))].sort(), ["c1", "c2"]);
    assert.deepEqual([...new Set(spec.data.values.filter((r) => r.device_id === "a").map((r) => r._color))], ["#0072b2"]);
  });

  test("no conditions legend when nothing but the device differs", async () => {
    const {lineChart} = await chartsModule;
    const spec = lineChart({rows: [{device_id: "a", x: 1, y: 1, k: "same"}, {device_id: "b", x: 1, y: 2, k: "same"}], title: "t",
      x: {field: "x", title: "x"}, y: {field: "y", title: "y"}, colorOf, conditions: [["k", "k"]]});
    assert.equal(spec.layer[1].encoding.shape, undefined);
    assert.equal(spec.layer[0].encoding.strokeDash, undefined);
  });

  test("lines join only consecutive measured levels of one series", async () => {
    const {levelLadders, segmentRows} = await chartsModule;
    const fujitsu = [1, 512].map((x) => ({setup: "study: f", s: "p3700", x, y: x}));
    const vm = [1, 2, 4, 8].map((x) => ({setup: "host: h", s: "vda", x, y: x}));
    const samsung = [50, 200, 250].map((x) => ({setup: "study: s", s: "850pro", x, y: x}));
    const other = [50, 100, 150, 200].map((x) => ({setup: "study: s", s: "pm1725", x, y: x}));
    const all = [...fujitsu, {setup: "study: f", s: "other", x: 2, y: 1}, ...vm, ...samsung, ...other];
    const ladders = levelLadders(all, "x");
    assert.deepEqual(ladders.get("study: f"), [1, 2, 512]);
    const seg = segmentRows(all, {x: "x", y: "y", seriesOf: (r) => r.s, ladders});
    const segmentsOf = (s) => seg.filter((r) => r.s === s).map((r) => r._segment);
    assert.equal(new Set(segmentsOf("p3700")).size, 2, "1 and 512 outstanding IOs are not joined");
    assert.equal(new Set(segmentsOf("vda")).size, 1, "a doubling sweep is one line");
    const s850 = seg.filter((r) => r.s === "850pro");
    assert.notEqual(s850.find((r) => r.x === 50)._segment, s850.find((r) => r.x === 200)._segment, "100 and 150 were measured in the study: 50 and 200 are not neighbours");
    assert.equal(s850.find((r) => r.x === 200)._segment, s850.find((r) => r.x === 250)._segment);
    // without a ladder every step of the series joins; time series join everything
    assert.equal(new Set(segmentRows(fujitsu, {x: "x", y: "y", seriesOf: (r) => r.s}).map((r) => r._segment)).size, 1);
    // repeat results at one level meet the line at their mean
    const rep = segmentRows([{s: "a", x: 1, y: 10}, {s: "a", x: 1, y: 20}, {s: "a", x: 2, y: 5}], {x: "x", y: "y", seriesOf: (r) => r.s});
    assert.deepEqual(rep.map((r) => r._line_y), [15, 15, 5]);
  });

  test("log axis by default past 100x, a switch from 10x, never log with a value <= 0 unless asked", async () => {
    const {valueScale} = await chartsModule;
    assert.deepEqual(valueScale([1, 101]), {type: "log", auto: "log", span: 101, offered: true, dropped: 0});
    assert.equal(valueScale([1, 100]).type, "linear");
    assert.equal(valueScale([1, 100]).offered, true);
    assert.equal(valueScale([1, 9]).offered, false);
    assert.equal(valueScale([0, 1, 1000]).type, "linear");
    assert.equal(valueScale([0, 1, 1000], "log").dropped, 1);
    assert.equal(valueScale([1, 1000], "linear").type, "linear");
  });

  test("numbers at sensible significant digits; tooltips list only known fields", async () => {
    const {fmtNumber, tooltipOf} = await chartsModule;
    assert.equal(fmtNumber(21614.12862), "21,614");
    assert.equal(fmtNumber(136479), "136,479");
    assert.equal(fmtNumber(756.73), "756.7");
    assert.equal(fmtNumber(2.4644985), "2.464");
    assert.equal(fmtNumber(0.00368934038), "0.00369");
    assert.equal(fmtNumber(NaN), null);
    assert.equal(fmtNumber(null), null);
    const tip = tooltipOf({a: 1.23456, b: null, c: undefined, d: NaN, e: "", f: "x", g: true, source_kind: "published"},
      [["a", "A (ms)"], ["b", "B"], ["c", "C"], ["d", "D"], ["e", "E"], ["f", "F"], ["g", "G"], ["h", "H"]]);
    assert.deepEqual(tip, {"A (ms)": "1.235", F: "x", G: "yes", Source: "published"});
  });

  test("long labels wrap to lines that fit a phone; a run id is cut after a dash", async () => {
    const {wrapText} = await chartsModule;
    const lines = wrapText("samsung_dual_socket · MySQL Server 5.7.11 · mysql_config_1 · 1000 wh · 3 GiB pool");
    assert.ok(lines.length > 1 && lines.every((l) => l.length <= 36), lines);
    assert.equal(lines.join(" "), "samsung_dual_socket · MySQL Server 5.7.11 · mysql_config_1 · 1000 wh · 3 GiB pool");
    const id = wrapText("2026-11-21-vm2-vda-fio-classic-five-sweep-001-database-8k-r67-oio001", 40);
    assert.ok(id.every((l) => l.length <= 40) && id.join("") === "2026-11-21-vm2-vda-fio-classic-five-sweep-001-database-8k-r67-oio001");
    assert.match(id[0], /-$/);
  });
});

describe("quotients from the mart", () => {
  const {quotientSetups, quotientCells, defaultLevel, ALL_LEVELS, ALL_SETUPS} = compareLogic;
  // Two setups: s1 at 50 and 100 connections (devices A, B, C at 100), s2 at 100 (A, B).
  const r = (id, device, setup, connections, config = "c") => ({tpcc_result_id: id, device_label: device, device_id: device.toLowerCase(),
    setup, source_kind: "published", db_config_id: config, connections});
  const results = [r(1, "A", "s1", 50), r(2, "B", "s1", 50), r(3, "A", "s1", 100), r(4, "B", "s1", 100), r(5, "C", "s1", 100),
    r(6, "A", "s2", 100), r(7, "B", "s2", 100)];
  const q = (a, b, quotient, metric = "tpm") => [{fact_a_id: a, fact_b_id: b, metric, quotient}, {fact_a_id: b, fact_b_id: a, metric, quotient: 1 / quotient}];
  const quotients = [...q(1, 2, 4), ...q(3, 4, 2), ...q(3, 5, 8), ...q(4, 5, 4), ...q(6, 7, 3), ...q(1, 2, 9, "p95")];
  const cell = (cells, a, b) => cells.find((c) => c.numerator === a && c.denominator === b);

  test("setups sorted by devices compared, with their levels", () => {
    const setups = quotientSetups(results, quotients, {metric: "tpm"});
    assert.deepEqual(setups.map((s) => [s.label, s.devices]), [["published · s1 · c", 3], ["published · s2 · c", 2]]);
    assert.deepEqual(setups[0].levels, [{level: 50, devices: 2}, {level: 100, devices: 3}]);
    assert.equal(defaultLevel(setups[0].levels), 100, "the level most devices share");
    assert.equal(defaultLevel([{level: 50, devices: 4}, {level: 100, devices: 4}, {level: 150, devices: 4}]), 100, "the middle of equals");
    assert.equal(defaultLevel([{level: 50, devices: 2}, {level: 100, devices: 2}]), 50, "the lower of two middles");
  });

  test("one setup at one level is the mart's quotient itself; 'all' is the geometric mean", () => {
    const [s1, s2] = quotientSetups(results, quotients, {metric: "tpm"});
    const at100 = quotientCells(results, quotients, {metric: "tpm", setup: s1.key, level: 100});
    assert.equal(cell(at100, "A", "B").geomean, 2);
    assert.equal(cell(at100, "A", "B").n, 1);
    assert.deepEqual(cell(at100, "A", "B").levels, [100]);
    assert.equal(cell(at100, "C", "A").geomean, 1 / 8);
    const allLevels = quotientCells(results, quotients, {metric: "tpm", setup: s1.key, level: ALL_LEVELS});
    assert.ok(Math.abs(cell(allLevels, "A", "B").geomean - Math.sqrt(8)) < 1e-12);
    assert.deepEqual([cell(allLevels, "A", "B").min, cell(allLevels, "A", "B").max, cell(allLevels, "A", "B").n], [2, 4, 2]);
    const everySetup = quotientCells(results, quotients, {metric: "tpm", setup: ALL_SETUPS, level: "100"});
    assert.ok(Math.abs(cell(everySetup, "A", "B").geomean - Math.sqrt(6)) < 1e-12);
    assert.equal(cell(everySetup, "A", "B").setup_count, 2);
    assert.equal(quotientCells(results, quotients, {metric: "tpm", setup: s2.key, level: 50}).length, 0);
  });

  test("only pairs whose two results are selected; other metrics apart", () => {
    const cells = quotientCells(results.filter((x) => x.device_label !== "C"), quotients, {metric: "tpm", level: 100});
    assert.equal(cell(cells, "A", "C"), undefined);
    assert.equal(cell(quotientCells(results, quotients, {metric: "p95", level: 50}), "A", "B").geomean, 9);
  });
});

describe("knees", () => {
  test("a TPC-C result is ringed when it is its sweep's knee under the sweep's conditions", async () => {
    const {markKnees} = await import("../../src/components/tpcc-data.js");
    const base = {source_kind: "published", study_id: "s", host_id: "h", device_id: "d", db_config_id: "c", db_server: "m", kit: "k",
      warehouses: 500, buffer_pool_gib: 12, page_size_kib: null, data_device_count: null, array_layout: null};
    const rows = [50, 100, 150].map((connections) => ({...base, connections}));
    const knees = [{...base, sweep_variable: "connections", connections: null, knee_load: 100, is_knee_reached: true}];
    assert.deepEqual(markKnees(rows, knees).map((r) => Boolean(r._knee)), [false, true, false]);
    assert.deepEqual(markKnees(rows.map((r) => ({...r, db_config_id: "other"})), knees).map((r) => Boolean(r._knee)), [false, false, false]);
    assert.deepEqual(markKnees(rows, knees, {x: "buffer_pool_gib"}).map((r) => Boolean(r._knee)), [false, false, false]);
  });

  test("a fio sweep's knee: the first level whose next consecutive level adds under 5 %", async () => {
    const {fioKnees} = await import("../../src/components/fio-charts.js");
    const sweep = [[1, 100], [2, 200], [4, 300], [8, 310], [16, 400]].map(([outstanding_ios, iops]) => ({s: "a", outstanding_ios, iops}));
    assert.deepEqual(fioKnees(sweep, {seriesOf: (r) => r.s}).filter((r) => r._knee).map((r) => r.outstanding_ios), [4]);
    // two published figures (1 and 512) are no sweep: no knee
    const two = [[1, 10000], [512, 10100]].map(([outstanding_ios, iops]) => ({s: "p", outstanding_ios, iops}));
    assert.equal(fioKnees(two, {seriesOf: (r) => r.s}).some((r) => r._knee), false);
  });
});
