// How long the list pages take to turn a page payload into chart rows, the way they do it now
// (src/components/data.js rowsOf / withFields: one compiled object literal per row) and the way
// they did before (a row built a property at a time, then a spread per step), in one run on the
// same payload: /fio's fio_results.json of a built site (the biggest list payload: one row per
// fio job and direction, 60 columns).
//
//   node bench/rows_shaping.mjs [--rounds N]     (the site is $IOPSCOPE_DIST or dist/)
//
// Prints JSON: per step the median of N rounds (ms), both ways, and their ratio.
import {readFileSync, readdirSync} from "node:fs";
import {join} from "node:path";
import {DIST} from "../tests/browser/harness.mjs";
import {columnsOf, rowsOf} from "../src/components/data.js";
import {APPROX_LABELS, decorate} from "../src/components/charts.js";
import {jobKey, shapeMeasured} from "../src/components/fio-data.js";
import {profileOf} from "../src/components/fio-charts.js";
import {setupOf} from "../src/components/compare-logic.js";

const args = process.argv.slice(2);
const ROUNDS = args.includes("--rounds") ? Number(args[args.indexOf("--rounds") + 1]) : 5;
const dir = join(DIST, "_file", "data", "pages");
const file = readdirSync(dir).find((n) => /^fio_results\.[0-9a-f]+\.json$/.test(n));
const text = readFileSync(join(dir, file), "utf-8");
const label = (id) => `device ${id}`;

// The steps as they were before (git 786c5ad^): rows a property at a time, a spread per step.
const before = {
  rows(payload) {
    const columns = columnsOf(payload);
    const names = Object.keys(columns);
    const n = names.length ? columns[names[0]].length : 0;
    const rows = new Array(n);
    for (let i = 0; i < n; ++i) {
      const row = {};
      for (const name of names) row[name] = columns[name][i];
      rows[i] = row;
    }
    return rows;
  },
  decorate: (rows) => rows.map((r) => ({...r, source_kind: r.source_kind ?? r.run_kind ?? (r.is_synthetic ? "synthetic" : "measured"),
    figure: APPROX_LABELS[Boolean(r.is_approx ?? r.approx) ? 1 : 0], provenance: r.provenance ?? r.source ?? r.source_path ?? null})),
  shape(rows) {
    const base = rows.filter((r) => !r.is_aggregate).map((r) => ({...r, device_id: r.device_id ?? r.device,
      device_label: label(r.device_id ?? r.device), profile: profileOf(r), setup: setupOf(r), array_layout: r.array_layout ?? r.data_array_layout ?? null}));
    const groups = new Map();
    for (const r of base) {
      const k = jobKey(r);
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k).push(r);
    }
    const totals = [];
    for (const members of groups.values()) {
      const iops = members.reduce((s, m) => s + m.iops, 0);
      totals.push(members.length === 1 ? {...members[0], direction: "total", fio_result_id: null}
        : {...members[0], direction: "total", iops, bw_mib_per_s: members.reduce((s, m) => s + m.bw_mib_per_s, 0), fio_result_id: null,
          clat_mean_us: null, lat_mean_us: null, clat_p50_us: null, clat_p95_us: null, clat_p99_us: null, clat_p99_9_us: null, clat_max_us: null});
    }
    return [...base, ...totals];
  }
};
const now = {rows: rowsOf, decorate: (rows) => decorate(rows), shape: (rows) => shapeMeasured(rows, label)};

function timed(way) {
  const payload = JSON.parse(text);
  const t0 = performance.now();
  const rows = way.rows(payload);
  const t1 = performance.now();
  const decorated = way.decorate(rows);
  const t2 = performance.now();
  const shaped = way.shape(decorated);
  const t3 = performance.now();
  return {rows: t1 - t0, decorate: t2 - t1, shape: t3 - t2, total: t3 - t0, count: shaped.length};
}

const samples = {before: [], now: []};
for (let i = 0; i < ROUNDS; ++i) for (const [name, way] of Object.entries({before, now})) samples[name].push(timed(way));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const report = {file, rows: JSON.parse(text).rows, rounds: ROUNDS, steps: {}};
for (const step of ["rows", "decorate", "shape", "total"]) {
  const b = median(samples.before.map((s) => s[step]));
  const n = median(samples.now.map((s) => s[step]));
  report.steps[step] = {before_ms: Math.round(b), now_ms: Math.round(n), ratio: Number((n / b).toFixed(2))};
}
console.log(JSON.stringify(report, null, 1));
