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
