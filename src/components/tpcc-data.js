// Shaping TPC-C page data: the interval series that belong to the current selection. Pure
// functions; unit-tested in tests/browser/logic.test.mjs.

/**
 * The interval series (rows of data/pages/tpcc_series.json) of the selected results: matched on
 * tpcc_series_id, or on run_id for results that do not name their series.
 */
export function seriesForSelection(seriesRows, selected) {
  const ids = new Set();
  const runs = new Set();
  for (const r of selected) {
    if (r.tpcc_series_id !== null && r.tpcc_series_id !== undefined) ids.add(r.tpcc_series_id);
    else if (r.run_id) runs.add(r.run_id);
  }
  return seriesRows.filter((s) => ids.has(s.tpcc_series_id) || runs.has(s.run_id));
}

/** The conditions a sweep of marts.fct_tpcc_sweep_knees holds fixed (besides its swept load). */
const SWEEP_FIELDS = ["source_kind", "study_id", "host_id", "device_id", "db_config_id", "db_server", "kit", "warehouses",
  "page_size_kib", "data_device_count", "array_layout"];

/** The load a sweep holds at one level while it sweeps the other (null for any other x axis). */
const heldLevelOf = (variable) => (variable === "connections" ? "buffer_pool_gib" : variable === "buffer_pool_gib" ? "connections" : null);

/** A result and a sweep (a row of fct_tpcc_sweep_knees) share every condition the sweep holds fixed, its held level included. */
const heldEqual = (r, k) => {
  const held = heldLevelOf(k.sweep_variable);
  return held !== null && same(r[held], k[held]) && SWEEP_FIELDS.every((f) => same(r[f], k[f]));
};

const same = (a, b) => (a ?? null) === (b ?? null) || (a !== null && a !== undefined && b !== null && b !== undefined && String(a) === String(b));

/**
 * Flag the results that are the knee of their sweep (`_knee: true`): the result whose load is
 * the sweep's knee_load, under the sweep's conditions. Only sweeps of the x axis drawn count
 * (a connections sweep's knee means nothing on a buffer-pool axis). Rows are copied.
 */
export function markKnees(rows, knees, {x = "connections"} = {}) {
  const sweeps = knees.filter((k) => k.sweep_variable === x && k.is_knee_reached && k.knee_load !== null && k.knee_load !== undefined);
  if (!heldLevelOf(x) || sweeps.length === 0) return rows;
  return rows.map((r) => {
    const knee = sweeps.some((k) => same(r[x], k.knee_load) && heldEqual(r, k));
    return knee ? {...r, _knee: true} : r;
  });
}

/**
 * The sweeps (rows of marts.fct_tpcc_sweep_knees) that the given TPC-C results are steps of:
 * same fixed conditions, and for a connections sweep the same buffer pool (for a buffer-pool
 * sweep the same connections). A run page uses it to say where its run sits in its sweep.
 */
export function sweepsOfResults(results, knees) {
  return knees.filter((k) => results.some((r) => heldEqual(r, k) &&
    typeof r[k.sweep_variable] === "number" && r[k.sweep_variable] >= k.min_load && r[k.sweep_variable] <= k.max_load));
}

const LOAD_WORDS = {connections: ["connection", "connections"], buffer_pool_gib: ["GiB buffer pool", "GiB buffer pool"]};
const loadText = (variable, value, fmt) => {
  const [one, many] = LOAD_WORDS[variable] ?? ["", ""];
  return `${fmt(value)} ${value === 1 ? one : many}`.trim();
};

/**
 * What stopped a sweep, in words, from the mart's columns: each stop condition that broke (with
 * the load where it first broke), or the plateau after the knee; null when nothing stopped it
 * within the steps measured. `fmt` formats numbers (the site's significant digits).
 */
export function sweepStops(k, fmt = String) {
  const at = (v) => loadText(k.sweep_variable, v, fmt);
  const stops = [];
  if (k.first_failed_load !== null && k.first_failed_load !== undefined) stops.push(`a step failed at ${at(k.first_failed_load)}`);
  if (k.first_cpu_break_load !== null && k.first_cpu_break_load !== undefined) stops.push(`CPU busy above ${fmt(k.cpu_limit_pct)} % from ${at(k.first_cpu_break_load)}`);
  if (k.first_p95_break_load !== null && k.first_p95_break_load !== undefined) stops.push(`New-Order p95 above ${fmt(k.p95_limit_ms)} ms from ${at(k.first_p95_break_load)}`);
  if (k.first_log_write_break_load !== null && k.first_log_write_break_load !== undefined) stops.push(`log write wait above ${fmt(k.log_write_limit_ms)} ms from ${at(k.first_log_write_break_load)}`);
  if (k.is_knee_reached && k.knee_load !== null && k.knee_load !== undefined) {
    stops.push(`throughput plateau: the step after ${at(k.knee_load)} gains ${fmt(k.knee_gain_to_next_pct)} % (less than ${fmt(k.knee_min_gain_pct)} %)`);
  }
  return stops.length ? stops : null;
}

/** Where a load sits against its sweep's knee: "before the knee", "the knee", "past the knee" (null without a knee). */
export function kneePosition(load, k) {
  if (!k.is_knee_reached || k.knee_load === null || k.knee_load === undefined || typeof load !== "number") return null;
  return load < k.knee_load ? "before the knee" : load === k.knee_load ? "the knee" : "past the knee";
}
