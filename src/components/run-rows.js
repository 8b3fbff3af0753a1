// One run's rows of every mart, read from the marts' Parquet files (written sorted by run by
// src/data/_run_parquet.py) as the column-oriented payloads pages read (src/components/runs.js):
// for each mart with a run_id, only the byte ranges that hold the run (parquet-range.js), then
// the host, device, configuration, study and profile rows those rows name. No page globals here,
// so tests run it in Node against the built files.
import {readKeyedRows} from "./parquet-range.js";

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

/** The rows of a mart whose column `key` is `value` (or one of `value`). */
async function martRows(open, mart, key, value) {
  const file = await open(mart.name);
  return readKeyedRows(file, key, value, {expectRows: mart.rows});
}

/**
 * One run's bundle {run_id, tables: {<mart>: payload}} read from the marts' Parquet files, or
 * null when no mart has a row of it. `index`: data/run_marts.json; `open(name)`: resolves to the
 * mart's file for range reads; `tables`: only these marts (then never null).
 */
export async function readRunBundle(runId, {index, open, tables = null}) {
  const {marts, dims, run_row_limit: limit} = index;
  const wanted = (name) => !tables || tables.includes(name);
  const byRun = marts.filter((m) => m.key === "run_id" && wanted(m.name));
  // Marts only some runs fill (m.tools: the tool sets of their runs, from the build) wait for the
  // run's own row of dim_runs: a file no run with this run's tools filled is not opened (a TPC-C
  // run reads no fio mart).
  // Every other mart is read at once, dim_runs among them.
  const gated = (m) => Array.isArray(m.tools) && byRun.some((r) => r.name === "dim_runs");
  const reads = new Map(byRun.filter((m) => !gated(m)).map((m) => [m.name, martRows(open, m, "run_id", runId)]));
  const runRow = reads.has("dim_runs") ? (await reads.get("dim_runs"))[0] : null;
  const runTools = runRow ? toolSet(runRow.tools) : null;   // no dim_runs row: read every mart
  for (const m of byRun.filter(gated)) {
    const mayHaveRows = runTools === null || m.tools.includes(runTools);
    reads.set(m.name, mayHaveRows ? martRows(open, m, "run_id", runId) : Promise.resolve([]));
  }
  const results = await Promise.all(byRun.map((m) => reads.get(m.name)));
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
    return values.length ? martRows(open, m, dims[m.name].key, values) : [];
  }));
  byKey.forEach((m, i) => {
    if (dimRows[i].length) bundle.tables[m.name] = payloadOf(m.name, m.columns, dimRows[i], null);
  });
  return bundle;
}
