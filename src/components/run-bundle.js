// One run's detail, read on demand from the marts' Parquet files (data/marts/<mart>.parquet, the
// Data page's downloads, written sorted by run by src/data/_run_parquet.py): for each mart with
// a run_id, only the byte ranges that hold this run's rows (src/components/parquet-range.js),
// then the host, device, configuration, study and profile rows those rows name. The result is a
// "bundle" {run_id, tables: {<mart>: column-oriented payload}} (src/components/runs.js reads it),
// so pages do not care where it came from. No file per run exists: a page's first load does not
// grow with the number of runs, and neither does the build.
import {openRangeFile} from "./parquet-range.js";
import {martRows, readRunBundle} from "./run-rows.js";
import {siteDataUrl} from "./site-data.js";

/**
 * Where a mart's Parquet file is served, relative to this module (works under any base path):
 * `file` is <mart>.parquet or, for a mart in parts, <mart>/part-<id>.parquet (run_marts.json).
 */
export function martFileUrl(file) {
  return siteDataUrl(`marts/${file}`);
}

// One open file per Parquet file for the page's life: what was fetched of it is kept.
const files = new Map();
const martFile = (file, layout) => {
  if (!files.has(file)) {
    const opening = openRangeFile(martFileUrl(file), {layout});
    opening.catch(() => files.delete(file));
    files.set(file, opening);
  }
  return files.get(file);
};

// One read per mart and key for the page's life: a page that draws the run's results first and
// the rest when it arrives (src/runs/run.md) asks twice for the same rows and fetches them once.
const READS_KEPT = 64;
const reads = new Map();
function sharedRead(mart, key, value) {
  const id = JSON.stringify([mart.name, key, value]);
  if (!reads.has(id)) {
    const loading = martRows(martFile, mart, key, value);
    loading.catch(() => reads.delete(id));
    reads.set(id, loading);
    while (reads.size > READS_KEPT) reads.delete(reads.keys().next().value);
  }
  return reads.get(id);
}

/** The name of the performance mark made each time a run's rows are read (its detail: the run id). */
export const RUN_READ_MARK = "iopscope:run-read";

// A few recent bundles stay in memory: pages switching between runs do not fetch twice.
const KEPT = 8;
const recent = new Map();

/**
 * The run reader of a page: `indexFile` is the page's FileAttachment of
 * data/marts/run_marts.json, which says which marts to read by which key, their row counts and
 * files' layouts, the dimensions' keys (src/data/marts.zip.py, src/data/_run_parquet.py
 * run_marts_index). The page names that file, not this module: a module that names a data file
 * changes with the data, and a build that only refreshes the data (sitebuild/update.js) rewrites
 * the pages' file registrations, never a module. Returns loadRunBundle(runId, {tables, byTools}):
 * everything the marts hold about one run, or null when no mart has a row of it. `tables`:
 * only these marts (a page that draws one mart of a run reads only that one); `byTools`: see
 * run-rows.js readRunBundle. Rejects when a file cannot be read (a broken build or host), never
 * answers such a run with "not found".
 */
export function runBundleLoader(indexFile) {
  let index = null;
  const runIndex = () => (index ??= indexFile.json());
  return function loadRunBundle(runId, {tables = null, byTools = true} = {}) {
    const key = `${runId}\u0000${tables ? tables.join(",") : "*"}\u0000${byTools}`;
    if (recent.has(key)) {
      const kept = recent.get(key);
      recent.delete(key);
      recent.set(key, kept);
      return kept;
    }
    // A mark per run read (not per cached answer): which runs a page read is visible to tests and
    // tools through the Performance API, as the per-run files' requests used to be.
    performance.mark(RUN_READ_MARK, {detail: String(runId)});
    const loading = runIndex().then((index) => readRunBundle(String(runId), {index, open: martFile, tables, byTools, read: sharedRead}));
    recent.set(key, loading);
    loading.catch(() => recent.delete(key));
    while (recent.size > KEPT) recent.delete(recent.keys().next().value);
    return loading;
  };
}
