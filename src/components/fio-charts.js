// fio chart specs: rows of marts.fct_fio_results (and published IO results, histograms, log
// samples) in, Vega-Lite specs out. Pure functions: no DOM, no fetching.
import {EXACT, SCHEMA, SERIES_LEGEND, approxFill, kindDash, kindShape, lineChart, tooltip} from "./charts.js";

const OIO = {field: "outstanding_ios", title: "Outstanding IOs (iodepth × numjobs, per device)", scale: {type: "log", base: 2}};

const CONTEXT = [
  ["profile", "Profile"],
  ["rw", "rw"],
  ["direction", "Direction"],
  ["block_size", "Block size"],
  ["iodepth", "iodepth", EXACT],
  ["numjobs", "numjobs", EXACT],
  ["array_layout", "Layout"],
  ["measurement_area", "Measurement area"],
  ["job_name", "Job"]
];

/** A readable profile name for a measured fio row: the manifest's profile, else rw / mix / size. */
export function profileOf(row) {
  // The standard profile (e.g. "database") lets measured jobs meet the published figures.
  if (row.standard_profile_id) return row.standard_profile_id;
  if (row.profile_id) return row.profile_id;
  if (row.profile) return row.profile;
  const mix = row.rw && /rw|readwrite/.test(row.rw) && row.read_pct !== null && row.read_pct !== undefined ? ` ${row.read_pct}% read` : "";
  return [row.rw, mix.trim(), row.block_size].filter(Boolean).join(" ") || "unknown profile";
}

/** IOPS (or MiB/s) against outstanding IOs, a line per series. */
export function throughputVsLoad(rows, {y = "iops", yTitle = "IOPS (IO/s)", title}) {
  return lineChart({
    rows: rows.filter((r) => typeof r.outstanding_ios === "number" && r.outstanding_ios > 0),
    title, x: OIO, y: {field: y, title: yTitle},
    color: {field: "series", title: "Device · conditions"},
    extraTooltip: [["iops", "IOPS", EXACT], ["bw_mib_per_s", "MiB/s", EXACT], ...CONTEXT],
    order: "outstanding_ios"
  });
}

export const LATENCY_STATS = [
  ["clat_mean_us", "mean"],
  ["clat_p50_us", "p50"],
  ["clat_p99_us", "p99"],
  ["clat_p99_9_us", "p99.9"]
];

/** Completion latency statistic against IOPS as load rises: where latency turns up. */
export function latencyVsIops(rows, {stat = "clat_p99_us", statLabel = "p99", title}) {
  return lineChart({
    rows,
    title: title ?? `${statLabel} completion latency vs IOPS`,
    x: {field: "iops", title: "IOPS (IO/s)"},
    y: {field: stat, title: `${statLabel} completion latency (µs)`, scale: {type: "log"}},
    color: {field: "series", title: "Device · conditions"},
    extraTooltip: [["outstanding_ios", "Outstanding IOs", EXACT], ...CONTEXT],
    order: "outstanding_ios",
    height: 260
  });
}

/** json+ latency histogram: share of IOs per latency bin (log x), a line per chosen result. */
export function histogramChart(bins, {title}) {
  return {
    $schema: SCHEMA,
    title: {text: title, subtitle: "share of the result's IOs in each fio latency bin (bins are fio's own, ~1.6% wide)"},
    width: "container",
    height: 280,
    data: {values: bins},
    mark: {type: "line", interpolate: "step-after", strokeWidth: 1.5, point: {size: 14}},
    encoding: {
      x: {field: "latency_us", type: "quantitative", title: "Completion latency (µs, log scale)", scale: {type: "log"}},
      y: {field: "share_pct", type: "quantitative", title: "IOs in bin (% of the result's IOs)"},
      color: {field: "series", type: "nominal", title: "Result", legend: SERIES_LEGEND},
      tooltip: tooltip([["series", "Result"], ["latency_us", "Bin latency (µs)", EXACT], ["io_count", "IOs", EXACT],
        ["share_pct", "% of IOs", EXACT], ["latency_kind", "Latency kind"]])
    }
  };
}

/** fio log samples over time. */
export function logSamplesChart(samples, {title, yTitle}) {
  return {
    $schema: SCHEMA,
    title,
    width: "container",
    height: 260,
    data: {values: samples},
    mark: {type: "line", strokeWidth: 1.2, point: samples.length <= 400 ? {size: 12} : false},
    encoding: {
      x: {field: "t_s", type: "quantitative", title: "Time since job start (s)"},
      y: {field: "value", type: "quantitative", title: yTitle},
      color: {field: "series", type: "nominal", title: "Log · direction", legend: SERIES_LEGEND},
      strokeDash: kindDash,
      tooltip: tooltip([["series", "Log"], ["t_s", "Time (s)", EXACT], ["value", yTitle, EXACT], ["line", "Line in log file"]])
    }
  };
}

/** Published IO figures by profile, one bar per device and layout (single, RAID, independent). */
export function layoutBars(rows, {metric, metricTitle, title}) {
  return {
    $schema: SCHEMA,
    title: {text: title, subtitle: "how one device compares with RAID and independent multi-device layouts, as published"},
    width: "container",
    height: 300,
    data: {values: rows.filter((r) => typeof r[metric] === "number")},
    mark: {type: "bar", strokeWidth: 1.5},
    encoding: {
      x: {field: "profile", type: "nominal", title: "Load profile", axis: {labelAngle: 0}},
      xOffset: {field: "series"},
      y: {field: metric, type: "quantitative", title: metricTitle},
      color: {field: "series", type: "nominal", title: "Device · layout", legend: SERIES_LEGEND},
      fillOpacity: {...approxFill, scale: {domain: approxFill.scale.domain, range: [1, 0.25]}},
      stroke: {field: "series", type: "nominal", legend: null},
      tooltip: tooltip([["series", "Device · layout"], ["profile", "Profile"], [metric, metricTitle, EXACT],
        ["outstanding_ios", "Outstanding IOs"], ["measurement_area", "Measurement area"], ["qualifier", "Wording"]])
    }
  };
}

export {kindShape};
