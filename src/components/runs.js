// Helpers for the run page and run lists: pure functions over a run bundle (data/runs/<slug>.json,
// from src/data/runs.zip.py; src/components/run-bundle.js loads one) or over mart rows.
import {rowsOf} from "./data.js";
import {el, formatDate, kindBadge} from "./ui.js";

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

/**
 * Short device names for lists, "Samsung PM1725", from dim_devices rows: vendor and model
 * without their parenthesised remarks, the vendor left out when the model repeats it.
 */
export function shortDeviceNamer(deviceRows) {
  const names = new Map();
  const plain = (v) => (v ? String(v).replace(/\s*\([^)]*\)/g, "").trim() : "");
  for (const d of deviceRows) {
    const vendor = plain(d.device_vendor ?? d.vendor);
    const model = plain(d.device_model ?? d.model);
    const name = model && vendor && !model.toLowerCase().startsWith(vendor.toLowerCase()) ? `${vendor} ${model}` : model || vendor;
    if (d.device_id && name) names.set(d.device_id, name);
  }
  return (id) => (id === null || id === undefined ? null : names.get(id) ?? String(id));
}

/**
 * Rows of the run list (data/pages/runs_list.json) with what the list shows and filters on:
 * tool_list, where (host or study), device_label, workload (the load of the headline result)
 * and the headline results themselves. A run whose results span several devices (a published
 * study) gets counts instead of one device's numbers.
 */
export function runListRows(rows, deviceLabel = (id) => id) {
  return rows.map((r) => {
    const deviceId = r.data_device_id ?? r.data_device ?? null;
    const oneFioDevice = (r.fio_devices ?? 1) <= 1;
    const oneTpccDevice = (r.tpcc_devices ?? 1) <= 1;
    const fio = typeof r.fio_iops === "number" && oneFioDevice;
    const tpcc = typeof r.tpcc_new_order_tpm === "number" && oneTpccDevice;
    return {
      ...r,
      source_kind: r.source_kind ?? (r.is_synthetic ? "synthetic" : "measured"),
      tool_list: tagList(r.tools),
      where: r.host_id ?? (r.study_id ? `study: ${r.study_id}` : null),
      device_label: deviceId === null ? null : deviceLabel(deviceId),
      workload: workloadText(r, {fio, tpcc}),
      iops: fio ? r.fio_iops : null,
      mib_per_s: fio ? r.fio_mib_per_s ?? null : null,
      p99_ms: fio && typeof r.fio_p99_us === "number" ? r.fio_p99_us / 1000 : null,
      new_order_tpm: tpcc ? r.tpcc_new_order_tpm : null,
      p95_ms: tpcc ? r.tpcc_p95_ms ?? null : null
    };
  });
}

function workloadText(r, {fio, tpcc}) {
  const parts = [];
  if (fio) {
    const load = [r.fio_profile ? String(r.fio_profile).replaceAll("_", " ") : r.fio_rw,
      r.fio_block_size, typeof r.fio_read_pct === "number" ? `${r.fio_read_pct}% read` : null,
      typeof r.fio_outstanding_ios === "number" ? `${r.fio_outstanding_ios} outstanding IO${r.fio_outstanding_ios === 1 ? "" : "s"}` : null]
      .filter((v) => v !== null && v !== undefined && v !== "").join(" · ");
    parts.push(r.fio_job_count > 1 ? `best of ${r.fio_job_count} fio jobs: ${load}` : load);
  } else if (r.fio_job_count) {
    parts.push(`${r.fio_job_count} fio jobs on ${r.fio_devices} devices`);
  }
  if (tpcc) {
    const load = [typeof r.tpcc_best_warehouses === "number" ? `${r.tpcc_best_warehouses} warehouses` : null,
      typeof r.tpcc_best_connections === "number" ? `${r.tpcc_best_connections} connections` : null].filter(Boolean).join(" · ");
    parts.push(r.tpcc_result_count > 1 ? `best of ${r.tpcc_result_count} TPC-C results${load ? `: ${load}` : ""}` : `TPC-C${load ? `: ${load}` : ""}`);
  } else if (r.tpcc_result_count) {
    parts.push(`${r.tpcc_result_count} TPC-C results of ${r.tpcc_devices} devices`);
  }
  if (r.published_io_count) parts.push(`${r.published_io_count} published IO figures`);
  return parts.join("; ") || null;
}

/** The run list's columns (for ui.js sortableTable); `link(row)` renders the run id cell. */
export function RUN_LIST_COLUMNS({link}) {
  return [
    {key: "run", title: "run", value: (r) => r.run_id, cell: link, className: "col-run"},
    {key: "source", title: "source", value: (r) => r.source_kind, cell: (r) => kindBadge(r.source_kind)},
    {key: "started", title: "started", value: (r) => r.started_at ?? null, cell: (r) => formatDate(r.started_at), className: "nowrap"},
    {key: "iops", title: "IOPS", num: true, value: (r) => r.iops, hint: "fio: IOPS of the run's best job (read + write)"},
    {key: "mibs", title: "MiB/s", num: true, value: (r) => r.mib_per_s, hint: "fio: MiB/s of that job (read + write)"},
    {key: "p99", title: "p99 (ms)", num: true, value: (r) => r.p99_ms, hint: "fio: 99th percentile completion latency of that job, the slower direction"},
    {key: "tpm", title: "New-Order tpm", num: true, value: (r) => r.new_order_tpm, hint: "TPC-C: the run's best New-Order throughput (transactions per minute)"},
    {key: "p95", title: "p95 (ms)", num: true, value: (r) => r.p95_ms, hint: "TPC-C: New-Order 95th percentile response time at that result"},
    {key: "workload", title: "workload", value: (r) => r.workload, hint: "The load of the headline result (the best job or result of the run)", className: "col-workload"},
    {key: "device", title: "device", value: (r) => r.device_label, className: "col-device"},
    {key: "host", title: "host / study", value: (r) => r.where, className: "nowrap"},
    {key: "tools", title: "tools", value: (r) => r.tools},
    {key: "tags", title: "tags", value: (r) => tagList(r.tags).join(", ") || null,
      cell: (r) => tagList(r.tags).map((t) => el("span", {class: "badge tag"}, t))}
  ];
}
