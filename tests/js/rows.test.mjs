// Rows built by compiled object literals (src/components/data.js rowsOf, withFields) must be
// indistinguishable, to every reader the site has, from the plain objects they replace.
import assert from "node:assert/strict";
import {test} from "node:test";
import {rowsOf, withFields} from "../../src/components/data.js";
import {decorate} from "../../src/components/charts.js";
import {shapeMeasured} from "../../src/components/fio-data.js";

const ODD_NAMES = ["plain", "with space", "quote\"d", "back\\slash", "new\nline", "é", "1", "constructor", "toString", "hasOwnProperty"];

function payloadOf(names, n) {
  const data = {};
  names.forEach((name, j) => {
    data[name] = j % 2 ? {dict: ["x", "y"], codes: Array.from({length: n}, (_, i) => (i % 3 === 2 ? -1 : i % 2))}
      : Array.from({length: n}, (_, i) => i * 10 + j);
  });
  return {exists: true, data};
}

/** What rowsOf returned before: plain objects built a property at a time. */
function plainRows(payload) {
  const names = Object.keys(payload.data);
  const columns = names.map((name) => {
    const v = payload.data[name];
    return Array.isArray(v) ? v : v.codes.map((c) => (c < 0 ? null : v.dict[c]));
  });
  return Array.from({length: columns[0].length}, (_, i) => Object.fromEntries(names.map((name, j) => [name, columns[j][i]])));
}

const seen = (rows) => rows.map((r) => {
  const forIn = [];
  for (const k in r) forIn.push(k);
  return {keys: Object.keys(r), forIn, json: JSON.stringify(r), spread: {...r}};
});

test("rows of a payload read like plain objects: keys, order, JSON, spread, for...in", () => {
  const payload = payloadOf(ODD_NAMES, 5);
  assert.deepEqual(seen(rowsOf(payload)), seen(plainRows(payload)));
  assert.equal(rowsOf(payload)[0].constructor, "x");   // a column, not the prototype's
});

test("withFields adds and replaces like a spread, on rows of one shape, plain rows and mixed rows", () => {
  const payload = payloadOf(ODD_NAMES, 6);
  const derive = (r) => ({plain: -r.plain, added: `${r.plain}!`, "quote\"d": null});
  const expected = seen(plainRows(payload).map((r) => ({...r, ...derive(r)})));
  assert.deepEqual(seen(withFields(rowsOf(payload), derive)), expected);
  assert.deepEqual(seen(withFields(plainRows(payload), derive)), expected);
  const mixed = [...rowsOf(payload).slice(0, 3), ...plainRows(payload).slice(3)];
  assert.deepEqual(seen(withFields(mixed, derive)), expected);
  // rows of two shapes (a column only some have) keep each its own keys
  const other = [{plain: 1}, {plain: 2, extra: true}];
  assert.deepEqual(withFields(other, (r) => ({n: r.plain})), [{plain: 1, n: 1}, {plain: 2, extra: true, n: 2}]);
  assert.deepEqual(withFields([], derive), []);
  // a derive that adds other keys for some rows gives what the spread gives
  const sometimes = (r) => (r.plain % 20 ? {odd: true} : {even: true, plain: 0});
  assert.deepEqual(seen(withFields(rowsOf(payload), sometimes)), seen(plainRows(payload).map((r) => ({...r, ...sometimes(r)}))));
});

test("a column named __proto__ stays a column (rows built without a literal)", () => {
  const data = JSON.parse('{"__proto__": [1, 2], "b": [3, 4]}');
  const rows = rowsOf({exists: true, data});
  assert.deepEqual(rows.map((r) => Object.keys(r)), plainRows({data}).map((r) => Object.keys(r)));
});

test("a chain of shapings gives what the spreads gave", () => {
  const n = 40;
  const data = {
    run_id: Array.from({length: n}, (_, i) => `run${i % 4}`), source_path: Array.from({length: n}, (_, i) => `run${i % 4}/fio.json`),
    started_at: Array(n).fill(null), group_id: Array(n).fill(0), job_name: Array.from({length: n}, (_, i) => `job${Math.floor(i / 2) % 5}`),
    outstanding_ios: Array.from({length: n}, (_, i) => 2 ** (i % 6)), hostname: Array(n).fill(null),
    device_id: Array.from({length: n}, (_, i) => `d${i % 3}`), direction: Array.from({length: n}, (_, i) => (i % 2 ? "write" : "read")),
    is_aggregate: Array.from({length: n}, (_, i) => i === 7), iops: Array.from({length: n}, (_, i) => 100 + i),
    bw_mib_per_s: Array.from({length: n}, (_, i) => i / 2), clat_mean_us: Array.from({length: n}, (_, i) => 50 + i),
    clat_p99_us: Array.from({length: n}, (_, i) => 90 + i), is_approx: Array(n).fill(false), provenance: Array(n).fill(null)
  };
  const label = (id) => `device ${id}`;
  const shaped = shapeMeasured(decorate(rowsOf({exists: true, data})), label);
  const fromPlain = shapeMeasured(decorate(plainRows({data})), label);
  assert.ok(shaped.some((r) => r.direction === "total"));
  assert.deepEqual(seen(shaped), seen(fromPlain));
});

test("a payload in segments gives the rows of the same payload whole", () => {
  // src/data/_page_members.py: each column {parts: [...]}, a segment's column plain or dictionary-encoded,
  // each segment with its own dictionary
  const whole = {exists: true, data: {
    run_id: ["a", "a", "b", "c", "c", "c"],
    iops: [1, 2, null, 4, 5, 6],
    device: ["x", null, "y", "x", "x", "z"],
  }};
  const segmented = {exists: true, data: {
    run_id: {parts: [{dict: ["a", "b"], codes: [0, 0, 1]}, ["c", "c", "c"]]},
    iops: {parts: [[1, 2, null], [4, 5, 6]]},
    device: {parts: [["x", null, "y"], {dict: ["x", "z"], codes: [0, 0, 1]}]},
  }};
  assert.deepEqual(rowsOf(segmented), rowsOf(whole));
  assert.deepEqual(rowsOf({exists: true, data: {v: {parts: [[7, 8]]}}}), [{v: 7}, {v: 8}], "one segment");
  assert.deepEqual(rowsOf({exists: true, data: {v: {parts: []}}}), [], "no segment");
});
