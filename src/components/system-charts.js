// System metric time series (iostat device samples, CPU samples) and generic folded series.
import {lineChart} from "./charts.js";

/**
 * Fold wide rows into long {t_s, value, series, metric} for a multi-line time chart.
 * `metrics`: [[field, label], ...]; `time`: a function row -> seconds (or null to drop the row);
 * `group`: a function row -> series prefix (device, cpu ...).
 */
export function fold(rows, {metrics, time, group = () => ""}) {
  const out = [];
  for (const r of rows) {
    const t = time(r);
    if (typeof t !== "number" || !Number.isFinite(t)) continue;
    for (const [field, label] of metrics) {
      const v = r[field];
      if (typeof v !== "number" || !Number.isFinite(v)) continue;
      const prefix = group(r);
      out.push({...r, t_s: t, value: v, metric: label, series: prefix ? `${prefix} · ${label}` : label});
    }
  }
  return out;
}

/** Seconds for a sample: elapsed_s when the source gives it, else from sampled_at vs the first. */
export function timeOf(rows) {
  const stamps = rows.map((r) => (r.sampled_at ? Date.parse(r.sampled_at) : NaN)).filter(Number.isFinite);
  const first = stamps.length ? Math.min(...stamps) : null;
  return (r) => {
    if (typeof r.elapsed_s === "number") return r.elapsed_s;
    if (typeof r.t_s === "number") return r.t_s;
    if (typeof r.time_ms === "number") return r.time_ms / 1000;
    const t = r.sampled_at ? Date.parse(r.sampled_at) : NaN;
    return Number.isFinite(t) && first !== null ? (t - first) / 1000 : null;
  };
}

/**
 * A time-series chart of folded rows: coloured by device where the rows name one (iostat), the
 * neutral colour otherwise (CPU); each series (device and metric) has its shape and dash.
 */
export function timeSeriesChart(rows, {title, yTitle, xTitle = "Time since first sample (s)", height = 240, yScale}) {
  return lineChart({
    rows,
    title,
    x: {field: "t_s", title: xTitle},
    y: {field: "value", title: yTitle},
    variant: "series", conditionsTitle: "Series",
    join: "all", points: rows.length <= 300, pointSize: 14, yScale,
    tip: [["sampled_at", "Sampled at"]],
    height
  });
}
