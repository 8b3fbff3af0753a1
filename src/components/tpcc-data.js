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

const same = (a, b) => (a ?? null) === (b ?? null) || (a !== null && a !== undefined && b !== null && b !== undefined && String(a) === String(b));

/**
 * Flag the results that are the knee of their sweep (`_knee: true`): the result whose load is
 * the sweep's knee_load, under the sweep's conditions. Only sweeps of the x axis drawn count
 * (a connections sweep's knee means nothing on a buffer-pool axis). Rows are copied.
 */
export function markKnees(rows, knees, {x = "connections"} = {}) {
  const fixed = x === "connections" ? "buffer_pool_gib" : x === "buffer_pool_gib" ? "connections" : null;
  const sweeps = knees.filter((k) => k.sweep_variable === x && k.is_knee_reached && k.knee_load !== null && k.knee_load !== undefined);
  if (!fixed || sweeps.length === 0) return rows;
  return rows.map((r) => {
    const knee = sweeps.some((k) => same(r[x], k.knee_load) && same(r[fixed], k[fixed]) && SWEEP_FIELDS.every((f) => same(r[f], k[f])));
    return knee ? {...r, _knee: true} : r;
  });
}
