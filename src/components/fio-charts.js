// fio chart specs: rows of marts.fct_fio_results (and published IO results, histograms, log
// samples) in, Vega-Lite specs out. Pure functions: no DOM, no fetching. Colour is the device
// (charts.js); the conditions that differ are shapes and dashes.
import {barChart, isNum, lineChart} from "./charts.js";

const OIO = {field: "outstanding_ios", title: "Outstanding IOs (iodepth × numjobs, per device)", scale: {type: "log", base: 2}};

/**
 * The conditions a fio chart's "Conditions" legend names when they vary: what tells two series
 * of one device apart. rw and ioengine are left to the tooltip (profile, block size and read share
 * say the same for the reader, and a published figure states neither).
 */
export const FIO_SERIES_CONDITIONS = [
  ["source_kind", "source"], ["tool", "tool"], ["setup", "study / host"], ["profile", "load profile"], ["block_size", "block size"],
  ["read_pct", "read share"], ["direction", "direction"], ["array_layout", "array layout"], ["measurement_area", "measurement area"]
];

const CONTEXT = [
  ["profile", "Profile"],
  ["tool", "Tool"],
  ["rw", "rw"],
  ["ioengine", "ioengine"],
  ["read_pct", "Read share (%)"],
  ["direction", "Direction"],
  ["block_size", "Block size"],
  ["iodepth", "iodepth"],
  ["numjobs", "numjobs"],
  ["array_layout", "Layout"],
  ["measurement_area", "Measurement area"],
  ["qualifier", "Wording"],
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

/**
 * IOPS (or MiB/s) against outstanding IOs: points per device, lines only between consecutive
 * measured levels (`ladders`: charts.js levelLadders of the page's data). `knee`: ring the rows
 * flagged `_knee` (fioKnees).
 */
export function throughputVsLoad(rows, {y = "iops", yTitle = "IOPS (IO/s)", title, yScale, ladders = null, knee = false, conditions = FIO_SERIES_CONDITIONS}) {
  return lineChart({
    rows: rows.filter((r) => typeof r.outstanding_ios === "number" && r.outstanding_ios > 0),
    title, x: OIO, y: {field: y, title: yTitle},
    conditions, ladders, knee, yScale,
    tip: [["iops", "IOPS (IO/s)"], ["bw_mib_per_s", "Throughput (MiB/s)"], ...CONTEXT]
  });
}

export const LATENCY_STATS = [
  ["clat_mean_us", "mean"],
  ["clat_p50_us", "p50"],
  ["clat_p99_us", "p99"],
  ["clat_p99_9_us", "p99.9"]
];

/**
 * Completion latency statistic against IOPS as load rises: where latency turns up. A line
 * follows one series through its outstanding-IO levels (consecutive ones only).
 */
export function latencyVsIops(rows, {stat = "clat_p99_us", statLabel = "p99", title, yScale, ladders = null, conditions = FIO_SERIES_CONDITIONS}) {
  return lineChart({
    rows: rows.filter((r) => typeof r.outstanding_ios === "number"),
    title: title ?? `${statLabel} completion latency vs IOPS`,
    x: {field: "iops", title: "IOPS (IO/s)"},
    y: {field: stat, title: `${statLabel} completion latency (µs)`},
    level: "outstanding_ios",
    conditions, ladders, yScale,
    tip: [["outstanding_ios", "Outstanding IOs"], ...CONTEXT],
    height: 260
  });
}

/**
 * json+ latency histogram: share of IOs per latency bin (log x), a line per chosen result,
 * coloured by its device. Rows carry `series` (the result's name).
 */
export function histogramChart(bins, {title, yScale}) {
  return lineChart({
    rows: bins,
    title,
    subtitle: "share of the result's IOs in each fio latency bin (bins are fio's own, ~1.6% wide)",
    x: {field: "latency_us", title: "Completion latency (µs, log scale)", scale: {type: "log"}},
    y: {field: "share_pct", title: "IOs in bin (% of the result's IOs)"},
    variant: "series", conditionsTitle: "Result",
    // fio's bins are ~1.6 % apart and empty ones are not stored: a step joins neighbouring bins
    // only, never across a latency range where no IO completed
    join: (a, b) => b / a <= 1.05, interpolate: "step-after", pointSize: 14, yScale,
    tip: [["io_count", "IOs in bin"], ["latency_kind", "Latency kind"]],
    height: 280
  });
}

/** fio log samples over time, a line per log file and direction, coloured by device. */
export function logSamplesChart(samples, {title, yTitle, yScale}) {
  return lineChart({
    rows: samples,
    title,
    x: {field: "t_s", title: "Time since job start (s)"},
    y: {field: "value", title: yTitle},
    variant: "series", conditionsTitle: "Log · direction",
    join: "all", points: samples.length <= 400, pointSize: 12, yScale,
    tip: [["line", "Line in log file"]],
    height: 260
  });
}

/** Layouts in the order a reader compares them: one device, then mirrors, stripes, independent devices. */
const LAYOUT_ORDER = ["single", "raid1_x2", "raid0_x2", "raid0_x4", "independent_x4", "partitions_x4"];

/**
 * Best figure per device and layout (single, RAID, independent devices): the layout on the
 * category axis (with the profile when several are shown), one bar per device.
 */
export function layoutBars(rows, {metric, metricTitle, title, yScale}) {
  const drawn = rows.filter((r) => isNum(r[metric]));
  const profiles = new Set(drawn.map((r) => r.profile));
  const layoutOf = (r) => r.array_layout ?? "single";
  const data = drawn.map((r) => ({...r, layout_label: profiles.size > 1 ? `${r.profile} · ${layoutOf(r)}` : layoutOf(r)}));
  const rank = (label) => {
    const i = LAYOUT_ORDER.indexOf(label.split(" · ").at(-1));
    return i < 0 ? LAYOUT_ORDER.length : i;
  };
  const order = [...new Set(data.map((r) => r.layout_label))].sort((a, b) => {
    const [pa, pb] = [a.split(" · ")[0], b.split(" · ")[0]];
    return profiles.size > 1 && pa !== pb ? pa.localeCompare(pb) : rank(a) - rank(b) || a.localeCompare(b);
  });
  return barChart({
    rows: data,
    title: {text: title, subtitle: "how one device compares with RAID and independent multi-device layouts, as published"},
    x: {field: "layout_label", title: profiles.size > 1 ? "Profile · layout" : "Layout", sort: order},
    y: {field: metric, title: metricTitle},
    yScale,
    tip: [["profile", "Profile"], ["array_layout", "Layout"], ["outstanding_ios", "Outstanding IOs"], ["measurement_area", "Measurement area"], ["qualifier", "Wording"]]
  });
}

/**
 * The knee of each fio sweep, decided as the TPC-C marts decide it (fct_tpcc_sweep_knees): the
 * first level whose next consecutive level adds less than `minGainPct` % of `y`. Only sweeps of
 * at least three consecutive levels (one unbroken line) have a knee. Returns the rows with
 * `_knee` true on the knee row of each sweep.
 */
export function fioKnees(rows, {y = "iops", seriesOf, ladders = null, setupOf = (r) => r.setup ?? "", minGainPct = 5}) {
  const bySeries = new Map();
  for (const r of rows) {
    if (!isNum(r.outstanding_ios) || !isNum(r[y])) continue;
    const key = seriesOf(r);
    if (!bySeries.has(key)) bySeries.set(key, new Map());
    const levels = bySeries.get(key);
    if (!levels.has(r.outstanding_ios)) levels.set(r.outstanding_ios, []);
    levels.get(r.outstanding_ios).push(r);
  }
  const knees = new Set();
  for (const levels of bySeries.values()) {
    const steps = [...levels.keys()].sort((a, b) => a - b);
    const ladder = ladders?.get(setupOf(levels.get(steps[0])[0])) ?? steps;
    const mean = (level) => levels.get(level).reduce((s, r) => s + r[y], 0) / levels.get(level).length;
    // the unbroken runs of consecutive levels
    let run = [steps[0]];
    const runs = [run];
    for (const level of steps.slice(1)) {
      if (ladder.indexOf(level) === ladder.indexOf(run.at(-1)) + 1 && ladder.indexOf(level) > 0) run.push(level);
      else runs.push((run = [level]));
    }
    for (const levelsRun of runs) {
      if (levelsRun.length < 3) continue;
      const knee = levelsRun.slice(0, -1).find((level, i) => {
        const here = mean(level);
        return here > 0 && ((mean(levelsRun[i + 1]) - here) / here) * 100 < minGainPct;
      });
      if (knee !== undefined) for (const r of levels.get(knee)) knees.add(r);
    }
  }
  return rows.map((r) => (knees.has(r) ? {...r, _knee: true} : r));
}
