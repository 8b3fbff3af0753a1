// One run's rows of every mart, read from the marts' Parquet files (written sorted by run by
// src/data/_run_parquet.py) as the column-oriented payloads pages read (src/components/runs.js):
// for each mart with a run_id, only the byte ranges that hold the run (parquet-range.js), then
// the host, device, configuration, study and profile rows those rows name. No page globals here,
// so tests run it in Node against the built files.
import {layoutRanges, readKeyedRows} from "./parquet-range.js";

// A mart's file is warmed (what a read of it needs first fetched at once, before the read can
// start) when that costs at most this: the small dimensions whole, the footers and page index of
// the marts waiting for the run's tools. Bytes spent on a mart the run turns out to have no rows
// in; a round trip saved on the first chart's (its results are in such marts).
const WARM_BYTES = 64 * 1024;

/** A value as the JSON payloads carry it: integers as numbers, instants as ISO text (UTC). */
function plain(value, type) {
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return null;
    const iso = value.toISOString();
    return type === "DATE" ? iso.slice(0, 10) : iso.replace(/\.000Z$/, "Z");
  }
  if (typeof value === "number" && !Number.isFinite(value)) return null;
  return value ?? null;
}

/** Rows (objects) -> the column-oriented payload of src/data/_sitedata.py, thinned to `limit` rows. */
function payloadOf(name, columns, rows, limit) {
  const step = limit && rows.length > limit ? Math.ceil(rows.length / limit) : 1;
  const kept = step === 1 ? rows : rows.filter((_, i) => i % step === 0);
  const data = {};
  for (const {name: column, type} of columns) data[column] = kept.map((r) => plain(r[column], type));
  return {name, exists: true, rows: kept.length, columns, data, total_rows: rows.length, thinned_every: step};
}

/** A run's tools as the build lists them per mart (src/data/_run_parquet.py tool_set): sorted, comma-joined. */
export function toolSet(tools) {
  const names = [...new Set((typeof tools === "string" ? tools : "").split(",").map((t) => t.trim()).filter(Boolean))].sort();
  return names.length ? names.join(",") : "(none)";
}

const utf8 = new TextEncoder();

/**
 * Keys compared as the build sorted them (DuckDB: numbers by value, text by its UTF-8 bytes,
 * which JavaScript's own string order does not follow past the Basic Multilingual Plane).
 */
export function compareKeys(a, b) {
  if (typeof a !== "string" || typeof b !== "string") return a < b ? -1 : a > b ? 1 : 0;
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); ++i) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/** Which of a mart's parts (src/data/_run_parquet.py plan_parts) holds `value`: the last whose first key is not above it. */
export function partIndex(parts, value) {
  let lo = 0;
  let hi = parts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (parts[mid].first === null || compareKeys(parts[mid].first, value) <= 0) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The files of `mart` a read of `value` (one key or a list) needs, each with the keys it may hold:
 * [{file, value, rows, layout}]. A mart written whole is one file, <mart>.parquet; a big one is
 * in parts of key ranges (data/marts/<mart>/part-<id>.parquet), and a run's rows are in one.
 */
export function filesFor(mart, value) {
  if (!Array.isArray(mart.parts) || !mart.parts.length) {
    return [{file: `${mart.name}.parquet`, value, rows: mart.rows, layout: mart.layout ?? null}];
  }
  const byPart = new Map();
  for (const v of Array.isArray(value) ? value : [value]) {
    const i = partIndex(mart.parts, v);
    byPart.set(i, [...(byPart.get(i) ?? []), v]);
  }
  return [...byPart].map(([i, values]) => ({
    file: mart.parts[i].file, value: Array.isArray(value) ? values : values[0],
    rows: mart.parts[i].rows, layout: mart.parts[i].layout ?? null
  }));
}

/** The rows of a mart whose column `key` is `value` (or one of `value`); `open(file, layout)` resolves to a file for range reads. */
export async function martRows(open, mart, key, value) {
  const rows = await Promise.all(filesFor(mart, value).map(async (f) =>
    readKeyedRows(await open(f.file, f.layout), key, f.value, {expectRows: f.rows})));
  return rows.length === 1 ? rows[0] : rows.flat();
}

/**
 * Fetch ahead what a read of `mart` by `values` (null: not known yet) needs first, when small: a
 * small dimension whole; of a mart read by run, its footer and page index (not a file small enough
 * to come whole: that is the read itself, and the run may have no rows there).
 */
async function warm(open, mart, values) {
  // (a mart in parts: only a known key tells which part to warm)
  if (mart.parts && (values === null || Array.isArray(values))) return;
  const [{file: name, layout}] = filesFor(mart, values);
  if (!layout) return;
  const ranges = layoutRanges(layout, values);
  if (values !== null && ranges.length === 1 && ranges[0].start === 0) return;
  if (ranges.reduce((n, r) => n + r.end - r.start, 0) > WARM_BYTES) return;
  const file = await open(name, layout);
  if (file.layout && file.prefetch) await file.prefetch(ranges);
}

/**
 * One run's bundle {run_id, tables: {<mart>: payload}} read from the marts' Parquet files, or
 * null when no mart has a row of it. `index`: data/marts/run_marts.json; `open(file, layout)`: resolves to
 * the mart's file for range reads; `tables`: only these marts (then never null); `read(mart, key,
 * value)`: the rows of a mart (default martRows; a page shares one across its reads).
 * `byTools` (default true): a mart only some tools fill waits for the run's row of dim_runs and is
 * not read when the run has none of them; false reads every mart at once, a round trip sooner,
 * at the cost of a page of each mart the run has no rows in (the run page's first read: the
 * results its first chart draws).
 */
export async function readRunBundle(runId, {index, open, tables = null, byTools = true, read = (m, key, value) => martRows(open, m, key, value)}) {
  const {marts, dims, run_row_limit: limit} = index;
  const wanted = (name) => !tables || tables.includes(name);
  const byRun = marts.filter((m) => m.key === "run_id" && wanted(m.name));
  // What later reads need first, fetched now, beside dim_runs (errors surface in those reads)
  const gatedLater = (m) => byTools && Array.isArray(m.tools) && byRun.some((r) => r.name === "dim_runs");
  for (const m of byRun.filter(gatedLater)) warm(open, m, runId).catch(() => {});
  for (const m of marts.filter((d) => dims[d.name] && wanted(d.name))) warm(open, m, null).catch(() => {});
  // Marts only some runs fill (m.tools: the tool sets of their runs, from the build) wait for the
  // run's own row of dim_runs: a file no run with this run's tools filled is not opened (a TPC-C
  // run reads no fio mart).
  // Every other mart is read at once, dim_runs among them.
  const gated = gatedLater;
  const reads = new Map(byRun.filter((m) => !gated(m)).map((m) => [m.name, read(m, "run_id", runId)]));
  const runRow = reads.has("dim_runs") ? (await reads.get("dim_runs"))[0] : null;
  const runTools = runRow ? toolSet(runRow.tools) : null;   // no dim_runs row: read every mart
  for (const m of byRun.filter(gated)) {
    const mayHaveRows = runTools === null || m.tools.includes(runTools);
    reads.set(m.name, mayHaveRows ? read(m, "run_id", runId) : Promise.resolve([]));
  }
  const results = await Promise.all(byRun.map((m) => reads.get(m.name)));
  const bundle = {run_id: runId, tables: {}};
  byRun.forEach((m, i) => {
    if (results[i].length) bundle.tables[m.name] = payloadOf(m.name, m.columns, results[i], limit);
  });
  if (!Object.keys(bundle.tables).length && !tables) return null; // no mart knows this run
  // The dimension rows the run's rows name (a device id in a result, a config id in the run row...),
  // in the marts that pick them (dims[name].picked_by; null: every mart).
  const named = (dim) => {
    const values = new Set();
    for (const [name, payload] of Object.entries(bundle.tables)) {
      if (dim.picked_by && !dim.picked_by.includes(name)) continue;
      for (const column of dim.sources) for (const v of payload.data[column] ?? []) if (typeof v === "string") values.add(v);
    }
    return [...values].sort();
  };
  const byKey = marts.filter((m) => dims[m.name] && !bundle.tables[m.name] && wanted(m.name));
  const dimRows = await Promise.all(byKey.map((m) => {
    const values = named(dims[m.name]);
    return values.length ? read(m, dims[m.name].key, values) : [];
  }));
  byKey.forEach((m, i) => {
    if (dimRows[i].length) bundle.tables[m.name] = payloadOf(m.name, m.columns, dimRows[i], null);
  });
  return bundle;
}
