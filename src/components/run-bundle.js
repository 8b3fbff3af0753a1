// One run's detail, fetched on demand: data/runs/<slug>.json, written by src/data/runs.zip.py
// ({slug, run_id, tables: {<mart>: column-oriented payload}}: that run's rows of every mart with
// a run_id, and the host, device, configuration, study and profile rows they point to).
// Pages ship aggregates and call loadRunBundle only for the run a reader picks, so a page's
// first load does not grow with the number of runs.
import {FileAttachment} from "observablehq:stdlib";

// The catalog maps run ids to file names (an id that is not URL- and file-safe gets a hashed
// slug) and says which runs exist, so an unknown id never costs a failing request.
const catalogFile = FileAttachment("../data/catalog.json");
let slugs = null;

/** The file name (without .json) of a run's bundle, or null when the warehouse has no such run. */
export async function runSlug(runId) {
  slugs ??= catalogFile.json().then((catalog) => new Map((catalog.runs ?? []).map((r) => [String(r.run_id), r.slug])));
  return (await slugs).get(String(runId)) ?? null;
}

/** Where a run's bundle is served, relative to this module (works under any base path). */
export function runBundleUrl(slug) {
  return new URL(`../../data/runs/${encodeURIComponent(slug)}.json`, import.meta.url).href;
}

// A few recent bundles stay in memory: pages switching between runs do not fetch twice.
const KEPT = 8;
const recent = new Map();

/**
 * The bundle of one run, or null when the warehouse has no run with that id. Rejects when the
 * file exists in the catalog but cannot be fetched or parsed (a broken build, not a stale link).
 */
export async function loadRunBundle(runId) {
  const key = String(runId);
  if (recent.has(key)) {
    const kept = recent.get(key);
    recent.delete(key);
    recent.set(key, kept);
    return kept;
  }
  const loading = (async () => {
    const slug = await runSlug(key);
    if (slug === null) return null;
    const response = await fetch(runBundleUrl(slug));
    if (!response.ok) throw new Error(`run ${key}: data/runs/${slug}.json answered HTTP ${response.status}`);
    return response.json();
  })();
  recent.set(key, loading);
  loading.catch(() => recent.delete(key));
  while (recent.size > KEPT) recent.delete(recent.keys().next().value);
  return loading;
}
