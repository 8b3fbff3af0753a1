// Helpers for the run page and run lists: pure functions over a run bundle (data/runs/<slug>.json,
// from src/data/runs.zip.py; src/components/run-bundle.js loads one) or over mart rows.
import {rowsOf} from "./data.js";

/** Row objects of one table of a run bundle ([] when the run has none). */
export function bundleRows(bundle, table) {
  return rowsOf(bundle?.tables?.[table]);
}

/**
 * Raw files behind a run's rows: distinct source paths with checksum, parser and tool version,
 * gathered from every mart of the bundle that carries provenance columns.
 */
export function rawFiles(bundle) {
  const files = new Map();
  for (const [table, payload] of Object.entries(bundle?.tables ?? {})) {
    const rows = rowsOf(payload);
    for (const r of rows) {
      const path = r.source_path ?? r.raw_path ?? r.manifest_path;
      if (!path) continue;
      const entry = files.get(path) ?? {path, sha256: null, parser: null, parser_version: null, tool_version: null, size_bytes: null, tables: new Set()};
      entry.size_bytes ??= r.size_bytes ?? r.file_size_bytes ?? null;
      entry.sha256 ??= r.source_sha256 ?? r.sha256 ?? r.file_sha256 ?? r.content_sha256 ?? null;
      entry.parser ??= r.parser ?? null;
      entry.parser_version ??= r.parser_version ?? null;
      entry.tool_version ??= r.tool_version ?? r.fio_version ?? null;
      entry.tables.add(table);
      files.set(path, entry);
    }
  }
  return [...files.values()].map((f) => ({...f, tables: [...f.tables].sort().join(", ")}))
    .sort((a, b) => a.path.localeCompare(b.path));
}

/** Tool versions a run's rows report: [{tool, version}] */
export function toolVersions(bundle, runRow = null) {
  const found = new Map();
  const add = (tool, version) => {
    if (!tool || version === null || version === undefined || version === "") return;
    const key = `${tool}\u0000${version}`;
    if (!found.has(key)) found.set(key, {tool, version: String(version)});
  };
  if (runRow) {
    for (const [key, value] of Object.entries(runRow)) {
      const m = key.match(/^(.*)_version$/);
      if (m && !["parser", "schema", "db"].includes(m[1])) add(m[1], value);
    }
  }
  for (const payload of Object.values(bundle?.tables ?? {})) {
    for (const r of rowsOf(payload)) {
      if (r.fio_version) add("fio", r.fio_version);
      if (r.tool_version && (r.tool ?? r.parser)) add(r.tool ?? toolOfParser(r.parser), r.tool_version);
    }
  }
  return [...found.values()].sort((a, b) => a.tool.localeCompare(b.tool));
}

function toolOfParser(parser) {
  return String(parser ?? "").split("_")[0] || "tool";
}

/** Split a comma-separated or array tag field into a list of strings. */
export function tagList(value) {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.map(String);
  return String(value).split(",").map((t) => t.trim()).filter(Boolean);
}
