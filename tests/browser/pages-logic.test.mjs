// The pages' pure helpers, without a browser: number and date formats (ui.js), numeric ordering
// of conditions and the run-level conditions of a runs comparison (compare-logic.js), the run
// list's headline rows (runs.js) and the Compare chart's points (compare-chart.js).
import assert from "node:assert/strict";
import {describe, test} from "node:test";
import {compareValues, fmt, formatDate} from "../../src/components/ui.js";
import {differingConditions, sideBySide, splitRunLevelFields} from "../../src/components/compare-logic.js";
import {runListRows, shortDeviceNamer} from "../../src/components/runs.js";
import {ratioPoints, ratioSummaries} from "../../src/components/compare-chart.js";

describe("fmt: sensible significant digits", () => {
  test("4 significant digits, never losing an integer digit", () => {
    assert.equal(fmt(0.00368934038), "0.003689");
    assert.equal(fmt(193.536), "193.5");
    assert.equal(fmt(21614.12862), "21,614");
    assert.equal(fmt(1500), "1,500");
    assert.equal(fmt(12.5), "12.5");
    assert.equal(fmt(-0.5), "-0.5");
    assert.equal(fmt(0), "0");
  });
  test("exact keeps up to 10 digits; missing values are a dash, never null/NaN", () => {
    assert.equal(fmt(0.00368934038, {exact: true}), "0.00368934038");
    for (const v of [null, undefined, "", NaN, Infinity]) assert.equal(fmt(v), "—");
    assert.equal(fmt(true), "yes");
  });
});

describe("formatDate: one date format", () => {
  test("timestamps in UTC, printed study dates as yyyy-mm-dd or yyyy-mm", () => {
    assert.equal(formatDate("2026-11-21T13:46:28Z"), "2026-11-21 13:46 UTC");
    assert.equal(formatDate("2026-11-21T14:46:28+01:00"), "2026-11-21 13:46 UTC");
    assert.equal(formatDate("2026-11-21T13:46:28Z", {time: false}), "2026-11-21");
    assert.equal(formatDate("2016-03-24"), "2016-03-24");
    assert.equal(formatDate("9/01/2016"), "2016-09-01");
    assert.equal(formatDate("12/17"), "2017-12");
    assert.equal(formatDate("March 2016"), "2016-03");
  });
  test("anything else comes back as it was", () => {
    assert.equal(formatDate("sometime in spring"), "sometime in spring");
    assert.equal(formatDate(null), "—");
  });
});

describe("ordering", () => {
  test("numbers as numbers, digits in text as numbers, empty values last", () => {
    assert.deepEqual([100, null, 12, 5, "x"].sort(compareValues), [5, 12, 100, "x", null]);
    assert.deepEqual(["oio10", "oio2", "oio1"].sort(compareValues), ["oio1", "oio2", "oio10"]);
  });
  test("a condition's values are listed in numeric order", () => {
    const [pool] = differingConditions([{pool: [105, 5, 12, 115]}, {pool: [5]}], [["pool", "buffer pool"]]);
    assert.deepEqual(pool.values, ["5, 12, 105, 115", "5"]);
  });
  test("side-by-side rows come in numeric order of their conditions", () => {
    const rows = [100, 50, 200].flatMap((c) => [0, 1].map((i) => ({_item: i, connections: c, tpm: c * (i + 1)})));
    const out = sideBySide([{name: "TPC-C", rows, keyFields: [["connections", "conn"]], metrics: [["tpm", "tpm", true]]}], 2);
    assert.deepEqual(out.map((r) => r.keys.connections), [50, 100, 200]);
    assert.deepEqual(out.map((r) => r.ratio[1]), [2, 2, 2]);
  });
});

describe("runs comparison: run-level conditions", () => {
  const job = (item, oio, direction, iops) => ({_item: item, outstanding_ios: oio, direction, block_size: "8k", iops});
  test("a load level each run has one value of is a condition of the run, not a key", () => {
    const rows = [job(0, 1, "read", 10), job(0, 1, "write", 5), job(1, 2, "read", 18), job(1, 2, "write", 9)];
    const keys = [["direction", ""], ["block_size", "bs"], ["outstanding_ios", "OIO"]];
    const {keyFields, runLevel} = splitRunLevelFields(rows, keys, 2);
    assert.deepEqual(keyFields.map(([f]) => f), ["direction"]);
    assert.deepEqual(runLevel.map(([f]) => f), ["block_size", "outstanding_ios"]);
    const out = sideBySide([{name: "fio", rows, keyFields, metrics: [["iops", "IOPS", true]]}], 2);
    assert.deepEqual(out.map((r) => [r.keys.direction, r.ratio[1]]), [["read", 1.8], ["write", 1.8]]);
  });
  test("a run that sweeps a level itself is matched level by level", () => {
    const rows = [job(0, 1, "read", 10), job(0, 4, "read", 30), job(1, 1, "read", 12)];
    const {keyFields} = splitRunLevelFields(rows, [["outstanding_ios", "OIO"]], 2);
    assert.deepEqual(keyFields.map(([f]) => f), ["outstanding_ios"]);
  });
});

describe("run list rows", () => {
  const names = shortDeviceNamer([{device_id: "d", device_vendor: "virtio (Red Hat PCI vendor 0x1af4)", device_model: "virtio block device (virtual disk)"},
    {device_id: "s", device_vendor: "Samsung", device_model: "PM1725"}]);
  test("short device names", () => {
    assert.equal(names("d"), "virtio block device");
    assert.equal(names("s"), "Samsung PM1725");
    assert.equal(names("unknown"), "unknown");
  });
  test("headline results of a one-device run; counts, not one device's numbers, for a study", () => {
    const [fio, study] = runListRows([
      {run_id: "r1", tools: "fio,iostat", host_id: "h", data_device_id: "s", fio_job_count: 1, fio_devices: 1, fio_iops: 9220.5,
        fio_mib_per_s: 72, fio_p99_us: 921.6, fio_outstanding_ios: 1, fio_block_size: "8k", fio_read_pct: 67, fio_profile: "database"},
      {run_id: "p", source_kind: "published", tpcc_result_count: 120, tpcc_devices: 8, tpcc_new_order_tpm: 139000, published_io_count: 97}
    ], names);
    assert.equal(fio.iops, 9220.5);
    assert.equal(fio.p99_ms, 0.9216);
    assert.deepEqual(fio.tool_list, ["fio", "iostat"]);
    assert.equal(fio.device_label, "Samsung PM1725");
    assert.equal(fio.workload, "database · 8k · 67% read · 1 outstanding IO");
    assert.equal(study.new_order_tpm, null);
    assert.equal(study.workload, "120 TPC-C results of 8 devices; 97 published IO figures");
    assert.equal(study.source_kind, "published");
  });
});

describe("compare chart points", () => {
  test("one point per shared condition and item after A; the geometric mean per metric", () => {
    const rows = [
      {section: "fio", label: "IOPS", conditions: "OIO 1", value: [10, 20], ratio: [1, 2], higherIsBetter: true},
      {section: "fio", label: "IOPS", conditions: "OIO 2", value: [10, 80], ratio: [1, 8], higherIsBetter: true},
      {section: "fio", label: "p99", conditions: "OIO 1", value: [null, 5], ratio: [null, null], higherIsBetter: false}
    ];
    const points = ratioPoints(rows, [{label: "A dev", deviceId: "a"}, {label: "B dev", deviceId: "b"}]);
    assert.equal(points.length, 2, "no point without A's value");
    assert.ok(points.every((p) => p.device_id === "b" && p.item === "B: B dev" && !/null|undefined|NaN/.test(JSON.stringify(p))));
    const [summary] = ratioSummaries(points);
    assert.equal(summary.ratio, 4);
    assert.equal(summary.n, 2);
  });
});
