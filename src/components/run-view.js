// Everything the run page shows, built from one run bundle (src/components/run-bundle.js).
// DOM out; every data value goes in as text.
import {decorate} from "./charts.js";
import {TPCC_CONDITIONS, labelSeries, setupOf, FIO_CONDITIONS} from "./compare-logic.js";
import {deviceLabeler, distinct, withFields} from "./data.js";
import {LATENCY_STATS, histogramChart, latencyVsIops, logSamplesChart, throughputVsLoad} from "./fio-charts.js";
import {shapeMeasured, shapePublished} from "./fio-data.js";
import {bundleRows, rawFiles, tagList, toolVersions} from "./runs.js";
import {fold, timeOf, timeSeriesChart} from "./system-charts.js";
import {intervalsChart, metricChart} from "./tpcc-charts.js";
import {el, facts, fmt, formatDate, kindBadge, note, sortableTable, table} from "./ui.js";
import {vegaChart} from "./vega.js";

const HIDDEN = new Set(["run_id", "description", "tags", "provenance"]);

/** Label for a column name: "host_cpu_model" -> "host cpu model". */
function label(name) {
  return name.replaceAll("_", " ");
}

/** Every non-null column of a row as a definition list. */
export function rowFacts(row, {skip = HIDDEN} = {}) {
  if (!row) return null;
  return facts(Object.entries(row).filter(([k]) => !skip.has(k))
    .map(([k, v]) => [label(k), /_at$/.test(k) && v ? formatDate(v) : v]));
}

export function runHeader(run, runId, {compareHref = null} = {}) {
  const kind = run?.source_kind ?? "measured";
  const where = run?.host_id ? `host ${run.host_id}` : run?.study_id ? `study ${run.study_id}` : null;
  return el("div", {class: "run-header"},
    el("p", {}, kindBadge(kind), " ", run?.run_status ? el("span", {class: "badge"}, run.run_status) : null,
      run?.is_synthetic ? el("span", {class: "badge synthetic"}, "synthetic data") : null,
      run?.started_at ? el("span", {class: "muted"}, ` started ${formatDate(run.started_at)}`) : null,
      where ? el("span", {class: "muted"}, ` · ${where}`) : null),
    run?.description ? el("p", {class: "run-description", id: "run-description"}, run.description) : null,
    tagList(run?.tags).length
      ? el("p", {class: "run-tags", id: "run-tags"}, "Tags: ", tagList(run.tags).map((t) => el("span", {class: "badge tag"}, t)))
      : null,
    compareHref ? el("p", {}, el("a", {href: compareHref, id: "compare-link"}, "Open this run on the Compare page →"),
      " (add up to three more runs or devices there).") : null
  );
}

const num = (key, title, hint) => ({key, title, num: true, hint});
const text = (key, title, hint) => ({key, title, hint});

/**
 * The run's results as numbers, before any chart: one sortable table per kind of result the run
 * has (fio jobs, TPC-C results, published IO figures), plus the system load its manifest window
 * recorded. Null where the run has no results.
 */
export function runResults(bundle) {
  const run = bundleRows(bundle, "dim_runs")[0] ?? null;
  const deviceLabel = deviceLabeler(bundleRows(bundle, "dim_devices"));
  const blocks = [];
  const LIMIT = 25;
  const fio = bundleRows(bundle, "fct_fio_results").filter((r) => r.direction !== "total")
    .map((r) => ({...r, device_label: r.device_id ? deviceLabel(r.device_id) : r.device ?? null}));
  if (fio.length) {
    const devices = new Set(fio.map((r) => r.device_label)).size;
    // the results first, then the job's settings (a phone sees the numbers without scrolling sideways)
    blocks.push(el("h3", {}, "fio jobs"), sortableTable(fio, [
      text("job_name", "job"), ...(devices > 1 ? [text("device_label", "device")] : []), text("direction", "direction"),
      num("outstanding_ios", "outstanding IOs", "iodepth × numjobs"),
      num("iops", "IOPS"), num("bw_mib_per_s", "MiB/s"), num("clat_mean_us", "mean clat (µs)"), num("clat_p50_us", "p50 (µs)"),
      num("clat_p99_us", "p99 (µs)"), num("clat_p99_9_us", "p99.9 (µs)"),
      text("rw", "rw"), {key: "block_size", title: "block size", value: (r) => r.block_size_bytes ?? r.block_size_kib ?? r.block_size, cell: (r) => r.block_size},
      num("read_pct", "read %"), num("iodepth", "iodepth"), num("numjobs", "jobs")
    ], {id: "run-results-fio", limit: LIMIT, className: fio.length <= 4 ? "data-table stack-on-phone" : "data-table"}));
  }
  const tpcc = bundleRows(bundle, "fct_tpcc_results").map((r) => ({...r, device_label: deviceLabel(r.device_id)}));
  if (tpcc.length) {
    blocks.push(el("h3", {}, "TPC-C results"), sortableTable(tpcc, [
      text("device_label", "device"), text("db_config_id", "DB config"), num("warehouses", "warehouses"),
      num("connections", "connections"), num("buffer_pool_gib", "buffer pool (GiB)"), num("page_size_kib", "page (KiB)"),
      num("new_order_tpm", "New-Order tpm"), num("p95_new_order_ms", "p95 (ms)"), num("max_new_order_ms", "max (ms)"),
      num("cpu_user_sys_pct", "CPU busy (%)"), num("cpu_iowait_pct", "iowait (%)"), text("result_status", "status")
    ], {id: "run-results-tpcc", limit: LIMIT}));
  }
  const pub = bundleRows(bundle, "fct_published_io_results").map((r) => ({...r, device_label: deviceLabel(r.device_id)}));
  if (pub.length) {
    blocks.push(el("h3", {}, "Published IO figures"), sortableTable(pub, [
      text("device_label", "device"), text("profile_id", "profile"), text("array_layout", "layout"),
      num("outstanding_ios", "outstanding IOs"), num("iops", "IOPS"), num("mib_per_s", "MiB/s"),
      num("min_read_latency_ms", "min read latency (ms)"), num("min_write_latency_ms", "min write latency (ms)"),
      {key: "approx", title: "figure", value: (r) => (r.is_approx ? "approximate" : "exact")}
    ], {id: "run-results-published-io", limit: LIMIT}));
  }
  const SYSTEM = [["cpu_busy_pct", "CPU busy (%)"], ["cpu_iowait_pct", "CPU iowait (%)"], ["data_read_iops", "data disk reads (IO/s)"],
    ["data_write_iops", "data disk writes (IO/s)"], ["data_read_await_ms", "data read await (ms)"],
    ["data_write_await_ms", "data write await (ms)"], ["data_util_pct", "data disk %util"], ["log_write_iops", "log writes (IO/s)"]];
  const system = SYSTEM.filter(([k]) => typeof run?.[k] === "number");
  if (system.length) {
    blocks.push(el("h3", {}, "System during the run"),
      el("div", {class: "table-scroll"}, table([Object.fromEntries(system.map(([k]) => [k, run[k]]))],
        system.map(([k, title]) => [k, title, {num: true}]), {className: "data-table stack-on-phone", caption: null})),
      el("p", {class: "muted"}, `Means over ${run.window_basis ?? "the run"} (${[run.cpu_source, run.iostat_sample_count ? "iostat" : null].filter(Boolean).join(", ") || "samples"}).`));
  }
  if (!blocks.length) return el("section", {id: "run-results"}, el("h2", {}, "Results"), note("The marts hold no results for this run (only what the sections below show)."));
  return el("section", {id: "run-results"}, el("h2", {}, "Results"), ...blocks);
}

/** The sections of a run page as a list of elements: results, charts, then where they come from. */
export function runSections(bundle) {
  const {results, charts, details} = runParts(bundle);
  return [results, ...charts, ...details];
}

/**
 * The sections of a run page in three parts: {results, charts, details} (the page draws the
 * results and the charts of the marts it has first, the rest when the other marts arrive).
 */
export function runParts(bundle) {
  const run = bundleRows(bundle, "dim_runs")[0] ?? null;
  const devices = bundleRows(bundle, "dim_devices");
  const deviceLabel = deviceLabeler(devices);
  const sections = [];
  const section = (id, title, ...content) => sections.push(el("section", {id}, el("h2", {}, title), ...content));

  section("run-manifest", "Manifest", run ? rowFacts(run) : note("This run has no row in dim_runs (the mart is not built, or the run has no manifest)."));

  const hosts = bundleRows(bundle, "dim_hosts");
  section("run-host", "Host", hosts.length ? hosts.map((h) => el("div", {class: "card"}, el("h3", {}, h.host_id ?? "host"), rowFacts(h, {skip: new Set(["host_id"])})))
    : note("No host facts for this run."));

  section("run-devices", "Devices", devices.length
    ? devices.map((d) => el("div", {class: "card"}, el("h3", {}, deviceLabel(d.device_id)), rowFacts(d, {skip: new Set()})))
    : note("No device facts for this run."));

  const params = bundleRows(bundle, "dim_db_configs");
  const configs = distinct(params, "config_id");
  section("run-db-config", "Database configuration", configs.length
    ? configs.map((c) => {
      const rows = params.filter((p) => p.config_id === c);
      return el("details", {open: configs.length <= 2},
        el("summary", {}, `${c} (${rows.length} parameters)`),
        table(rows, [["parameter", "parameter"], ["value", "value"], [(r) => (r.is_inherited ? `inherited from ${r.inherited_from ?? "parent"}` : ""), "note"]]));
    })
    : note("No database configuration is recorded for this run."));

  const tools = toolVersions(bundle, run);
  section("run-tools", "Tool versions", tools.length ? table(tools, [["tool", "tool"], ["version", "version"]]) : note("No tool versions recorded."));

  const files = rawFiles(bundle);
  section("run-files", "Raw files", files.length
    ? el("div", {class: "table-scroll"}, table(files, [["path", "file"], ["sha256", "SHA-256", {format: (v) => (v ? el("code", {class: "sha"}, v) : "not recorded in the marts")}],
        ["size_bytes", "bytes", {num: true}], ["parser", "parser"], ["parser_version", "parser version"], ["tool_version", "tool version"], ["tables", "marts"]]))
    : note("No raw file is named by this run's rows."));

  return {results: runResults(bundle), charts: charts(bundle, deviceLabel), details: sections};
}

function charts(bundle, deviceLabel) {
  const out = [];
  const block = (id, title, ...content) => out.push(el("section", {id}, el("h2", {}, title), ...content));
  const card = (id, chart) => el("div", {class: "card", id}, chart);

  const tpcc = labelSeries(withFields(decorate(bundleRows(bundle, "fct_tpcc_results")), (r) => ({setup: setupOf(r), device_label: deviceLabel(r.device_id)})),
    {conditions: TPCC_CONDITIONS, exclude: ["connections"]});
  if (tpcc.length) {
    const x = tpcc.some((r) => typeof r.connections === "number") ? "connections" : "buffer_pool_gib";
    const chart = (y, title, yTitle) => card(`run-chart-${y}`, vegaChart(metricChart(tpcc, {x, y, title, yTitle}),
      {empty: `no result of this run records ${yTitle.toLowerCase()}.`}));
    block("run-tpcc", "TPC-C results",
      chart("new_order_tpm", "New-Order throughput", "New-Order transactions per minute (tpm)"),
      el("div", {class: "grid grid-cols-2"},
        chart("p95_new_order_ms", "New-Order p95 response time", "New-Order p95 response time (ms)"),
        chart("max_new_order_ms", "New-Order max response time", "New-Order max response time (ms)"),
        chart("cpu_user_sys_pct", "CPU busy", "CPU busy, user + sys (%)"),
        chart("cpu_iowait_pct", "CPU iowait", "CPU iowait (%)"),
        chart("data_read_iops", "Data disk reads", "Data disk reads (IO/s)"),
        chart("data_write_iops", "Data disk writes", "Data disk writes (IO/s)")));
  }

  const intervals = decorate(bundleRows(bundle, "fct_tpcc_intervals")).map((r) => ({
    ...r, t_s: r.elapsed_s ?? r.t_s, series: `${deviceLabel(r.device_id)} · ${r.connections ?? "?"} conn${r.series_label ? ` · ${r.series_label}` : ""}`}));
  if (intervals.length) {
    const y = ["new_order_per_min", "new_order_tpm", "new_order_count"].find((f) => intervals.some((r) => typeof r[f] === "number")) ?? "new_order_per_min";
    block("run-intervals", "New-Order per interval", card("run-chart-intervals", vegaChart(intervalsChart(intervals, {y, title: "New-Order per interval over time"}))));
  }

  const tx = bundleRows(bundle, "fct_tpcc_tx_summaries");
  if (tx.length) {
    // The kit that printed the summary (tpcc-mysql, go-tpc, HammerDB...), not one kit's name for all
    const kits = [...new Set(bundleRows(bundle, "fct_tpcc_results").map((r) => r.kit).filter(Boolean))];
    block("run-tx", `TPC-C transactions (${kits.length ? kits.join(", ") : "the kit's"} summary)`, el("div", {class: "table-scroll"}, table(tx,
      [["connections", "connections", {num: true}], ["tx_type", "transaction"], ["success_count", "succeeded", {num: true}],
       ["late_count", "late", {num: true}], ["failure_count", "failed", {num: true}], ["per_min", "per minute", {num: true}],
       ["mix_share_pct", "mix share (%)", {num: true}], ["rt90_ms", "90th pct response (ms)", {num: true}],
       ["max_rt_ms", "max response (ms)", {num: true}], ["rt_verdict", "response-time check"], ["mix_verdict", "mix check"]])));
  }

  const fio = labelSeries(shapeMeasured(decorate(bundleRows(bundle, "fct_fio_results")), deviceLabel)
    .filter((r) => r.direction !== "total"), {conditions: FIO_CONDITIONS, exclude: ["outstanding_ios"]});
  const pubIo = labelSeries(shapePublished(decorate(bundleRows(bundle, "fct_published_io_results")), deviceLabel),
    {conditions: FIO_CONDITIONS, exclude: ["outstanding_ios"]});
  const io = [...fio, ...pubIo].filter((r) => typeof r.outstanding_ios === "number");
  if (io.length) {
    block("run-fio", "fio results",
      el("div", {class: "grid grid-cols-2"},
        card("run-chart-iops", vegaChart(throughputVsLoad(io, {y: "iops", yTitle: "IOPS (IO/s)", title: "IOPS vs outstanding IOs"}))),
        card("run-chart-mibs", vegaChart(throughputVsLoad(io, {y: "bw_mib_per_s", yTitle: "Throughput (MiB/s)", title: "Throughput vs outstanding IOs"}),
          {empty: "no result of this run records MiB/s with a stated load."})),
        ...LATENCY_STATS.map(([stat, statLabel]) => card(`run-chart-lat-${statLabel.replace(".", "_")}`,
          vegaChart(latencyVsIops(io, {stat, statLabel}), {empty: `no result of this run records a ${statLabel} latency.`})))));
  }

  const hist = bundleRows(bundle, "fct_fio_histograms");
  if (hist.length) {
    const info = new Map(bundleRows(bundle, "fct_fio_results").map((r) => [r.fio_result_id, r]));
    const key = (r) => r.fio_result_id ?? [r.job_name ?? r.job_index ?? "", r.direction ?? "", r.latency_kind ?? "clat"].join(" · ");
    const name = (k) => {
      const r = info.get(k);
      return r ? `${r.job_name ?? "job"} · ${r.direction} · ${r.outstanding_ios ?? "?"} outstanding IOs` : String(k);
    };
    const totals = new Map();
    for (const r of hist) totals.set(key(r), r.total_io_count ?? (totals.get(key(r)) ?? 0) + (r.io_count ?? 0));
    const bins = decorate(hist.filter((r) => (r.io_count ?? 0) > 0)).map((r) => ({
      ...r, series: name(key(r)), latency_us: r.bin_us ?? (r.bin_ns ?? 0) / 1000, share_pct: (100 * r.io_count) / totals.get(key(r))}));
    block("run-histograms", "Latency histograms", card("run-chart-histogram", vegaChart(histogramChart(bins, {title: "json+ latency histograms"}))));
  }

  const logs = bundleRows(bundle, "fct_fio_log_samples");
  if (logs.length) {
    const UNITS = {iops: "IOPS (IO/s)", bw: "Bandwidth (KiB/s)", lat: "Total latency (µs)", clat: "Completion latency (µs)", slat: "Submission latency (µs)"};
    block("run-fio-logs", "fio logs", el("div", {class: "grid grid-cols-2"}, distinct(logs, "log_kind").map((kind) => {
      const samples = decorate(logs.filter((r) => r.log_kind === kind)).map((r) => ({
        ...r, t_s: r.time_s ?? (r.time_ms ?? 0) / 1000, value: r.sample_value ?? r.value,
        series: `${r.log_name ?? "log"}.${r.job_index ?? ""} · ${r.direction ?? ""}`}));
      return card(`run-chart-log-${kind}`, vegaChart(logSamplesChart(samples, {title: `fio ${kind} log`, yTitle: UNITS[kind] ?? kind})));
    })));
  }

  const iostat = bundleRows(bundle, "fct_iostat_device_samples").filter((r) => !r.is_since_boot && !r.is_group);
  if (iostat.length) {
    const t = timeOf(iostat);
    const dev = (r) => [r.kernel_name ?? r.device ?? r.device_id ?? "device", r.device_role].filter(Boolean).join(" ");
    const ops = decorate(fold(iostat, {metrics: [["read_iops", "reads/s"], ["write_iops", "writes/s"], ["r_per_s", "reads/s"], ["w_per_s", "writes/s"]], time: t, group: dev}));
    const util = decorate(fold(iostat, {metrics: [["util_pct", "%util"]], time: t, group: dev}));
    const wait = decorate(fold(iostat, {metrics: [["read_await_ms", "read await"], ["write_await_ms", "write await"], ["await_ms", "await"]], time: t, group: dev}));
    block("run-iostat", "Disk activity (iostat)", el("div", {class: "grid grid-cols-2"},
      card("run-chart-iostat-ops", vegaChart(timeSeriesChart(ops, {title: "Requests per second by device", yTitle: "Requests (IO/s)"}),
        {empty: "iostat recorded no request rates."})),
      card("run-chart-iostat-util", vegaChart(timeSeriesChart(util, {title: "Device utilisation", yTitle: "%util (%)"}),
        {empty: "iostat recorded no %util (plain iostat reports do not)."})),
      card("run-chart-iostat-await", vegaChart(timeSeriesChart(wait, {title: "Request time (await)", yTitle: "Mean request time (ms)"}),
        {empty: "iostat recorded no request times (plain iostat reports do not)."}))));
  }

  let cpu = bundleRows(bundle, "fct_cpu_samples").filter((r) => !r.is_since_boot && (r.cpu === "all" || r.cpu === undefined || r.cpu === null));
  if (cpu.some((r) => r.is_preferred_source)) cpu = cpu.filter((r) => r.is_preferred_source);
  if (cpu.length) {
    const t = timeOf(cpu);
    const rows = decorate(fold(cpu, {metrics: [["busy_pct", "busy"], ["user_pct", "user"], ["system_pct", "system"], ["iowait_pct", "iowait"]], time: t,
      group: (r) => r.source_block ?? ""}));
    block("run-cpu", "CPU (all logical CPUs)", card("run-chart-cpu", vegaChart(timeSeriesChart(rows, {title: "CPU utilisation over time", yTitle: "Share of all logical CPUs (%)"}))));
  }

  if (!out.length) out.push(el("section", {id: "run-charts-none"}, el("h2", {}, "Charts"), note("The marts hold no chartable results for this run yet.")));
  return out;
}

