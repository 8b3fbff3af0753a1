// One run's detail, read on demand from the marts' Parquet files (data/marts/<mart>.parquet, the
// Data page's downloads, written sorted by run by src/data/_run_parquet.py): for each mart with
// a run_id, only the byte ranges that hold this run's rows (src/components/parquet-range.js),
// then the host, device, configuration, study and profile rows those rows name. The result is a
// "bundle" {run_id, tables: {<mart>: column-oriented payload}} (src/components/runs.js reads it),
// so pages do not care where it came from. No file per run exists: a page's first load does not
// grow with the number of runs, and neither does the build.
import {FileAttachment} from "observablehq:stdlib";
import {openRangeFile, readKeyedRows} from "./parquet-range.js";

// Which marts to read by which key, their row counts, the dimensions' keys (src/data/run_marts.json.py).
const indexFile = FileAttachment("../data/run_marts.json");
let index = null;
const runIndex = () => (index ??= indexFile.json());

/** Where a mart's Parquet file is served, relative to this module (works under any base path). */
export function martFileUrl(name) {
  return new URL(`../../data/marts/${encodeURIComponent(name)}.parquet`, import.meta.url).href;
}

// One open file per mart for the page's life: its size and footer are fetched once.
const files = new Map();
const martFile = (name) => {
  if (!files.has(name)) {
    const opening = openRangeFile(martFileUrl(name));
    opening.catch(() => files.delete(name));
    files.set(name, opening);
  }
  return files.get(name);
};

/** Requests and bytes the run reads have cost so far, per mart file (tests and benchmarks read it). */
export async function rangeStats() {
  const out = {};
  for (const [name, opening] of files) out[name] = {...(await opening.catch(() => ({stats: null}))).stats};
  return out;
}

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

/** The rows of a mart whose column `key` is `value` (or one of `value`). */
async function martRows(mart, key, value) {
  const file = await martFile(mart.name);
  return readKeyedRows(file, key, value, {expectRows: mart.rows});
}

async function loadBundle(runId, tables) {
  const {marts, dims, run_row_limit: limit} = await runIndex();
  const wanted = (name) => !tables || tables.includes(name);
  const byRun = marts.filter((m) => m.key === "run_id" && wanted(m.name));
  const results = await Promise.all(byRun.map((m) => martRows(m, "run_id", runId)));
  const bundle = {run_id: runId, tables: {}};
  byRun.forEach((m, i) => {
    if (results[i].length) bundle.tables[m.name] = payloadOf(m.name, m.columns, results[i], limit);
  });
  if (!Object.keys(bundle.tables).length && !tables) return null; // no mart knows this run
  // The dimension rows the run's rows name (a device id in a result, a config id in the run row...).
  const seen = new Map();
  for (const payload of Object.values(bundle.tables)) {
    for (const [column, values] of Object.entries(payload.data)) {
      const set = seen.get(column) ?? new Set();
      for (const v of values) if (typeof v === "string") set.add(v);
      seen.set(column, set);
    }
  }
  const byKey = marts.filter((m) => dims[m.name] && !bundle.tables[m.name] && wanted(m.name));
  const dimRows = await Promise.all(byKey.map((m) => {
    const values = [...new Set(dims[m.name].sources.flatMap((s) => [...(seen.get(s) ?? [])]))].sort();
    return values.length ? martRows(m, dims[m.name].key, values) : [];
  }));
  byKey.forEach((m, i) => {
    if (dimRows[i].length) bundle.tables[m.name] = payloadOf(m.name, m.columns, dimRows[i], null);
  });
  return bundle;
}

// A few recent bundles stay in memory: pages switching between runs do not fetch twice.
const KEPT = 8;
const recent = new Map();

/**
 * Everything the marts hold about one run, or null when no mart has a row of it. `tables`:
 * only these marts (a page that draws one mart of a run reads only that one). Rejects when a
 * file cannot be read (a broken build or host), never answers such a run with "not found".
 */
export async function loadRunBundle(runId, {tables = null} = {}) {
  const key = `${runId}\u0000${tables ? tables.join(",") : "*"}`;
  if (recent.has(key)) {
    const kept = recent.get(key);
    recent.delete(key);
    recent.set(key, kept);
    return kept;
  }
  const loading = loadBundle(String(runId), tables);
  recent.set(key, loading);
  loading.catch(() => recent.delete(key));
  while (recent.size > KEPT) recent.delete(recent.keys().next().value);
  return loading;
}
