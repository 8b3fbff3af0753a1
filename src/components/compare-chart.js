// The Compare page's chart: every shared metric as the ratio of each item to the baseline (A),
// one point per condition both were measured under and a diamond at their geometric mean, on a
// log axis centred on 1. Colour is the device (palette.js), as on every page. Pure: rows in,
// Vega-Lite spec out.
import {SCHEMA} from "./charts.js";
import {deviceColorEncoding} from "./palette.js";
import {fmt} from "./ui.js";

const LETTERS = "ABCD";

/**
 * Points of the chart from sideBySide rows: one per (row, item after A) with a ratio.
 * `items[i]` = {label, deviceId, deviceLabel}. Text fields carry the values as the tables show
 * them, so a tooltip never shows a raw 0.00368934038 or a null.
 */
export function ratioPoints(rows, items) {
  const out = [];
  for (const r of rows) {
    for (let i = 1; i < items.length; ++i) {
      const q = r.ratio[i];
      if (typeof q !== "number" || !Number.isFinite(q) || q <= 0) continue;
      out.push({
        metric: `${r.section}: ${r.label}`, item: `${LETTERS[i]}: ${items[i].label}`,
        device_id: items[i].deviceId ?? items[i].label, device_label: items[i].deviceLabel ?? items[i].label,
        ratio: q, ratio_text: `×${fmt(q, {digits: 3})}`,
        value_text: fmt(r.value[i]), baseline_text: fmt(r.value[0]),
        under: r.conditions || "any condition",
        better: r.higherIsBetter === null ? "no direction" : r.higherIsBetter ? "higher is better" : "lower is better"
      });
    }
  }
  return out;
}

/** Geometric mean of the ratios per (metric, item), with their count and range. */
export function ratioSummaries(points) {
  const groups = new Map();
  for (const p of points) {
    const k = `${p.metric}\u001f${p.item}`;
    const g = groups.get(k) ?? {...p, logs: [], min: Infinity, max: -Infinity};
    g.logs.push(Math.log(p.ratio));
    g.min = Math.min(g.min, p.ratio);
    g.max = Math.max(g.max, p.ratio);
    groups.set(k, g);
  }
  return [...groups.values()].map(({logs, ...g}) => {
    const ratio = Math.exp(logs.reduce((s, x) => s + x, 0) / logs.length);
    return {
      ...g, ratio, n: logs.length, ratio_text: `×${fmt(ratio, {digits: 3})}`,
      range_text: logs.length > 1 ? `×${fmt(g.min, {digits: 3})} to ×${fmt(g.max, {digits: 3})} over ${logs.length} conditions` : "one condition",
      under: logs.length > 1 ? `${logs.length} shared conditions` : g.under
    };
  });
}

/**
 * The spec. `colorOf(deviceId)` from palette.js deviceColorer. Metrics keep the order of `rows`;
 * items after A sit side by side within each metric's band.
 */
export function ratioChart(rows, items, {colorOf, title = "Ratio to A on every shared metric", width = 800} = {}) {
  // On a phone the metric names would take the whole width: cut them shorter (the tooltip has them whole).
  const narrow = width < 560;
  const points = ratioPoints(rows, items);
  const summaries = ratioSummaries(points);
  const metrics = [...new Set(points.map((p) => p.metric))];
  const itemNames = [...new Set(points.map((p) => p.item))];
  const color = deviceColorEncoding([...points, ...summaries], {colorOf, title: "Device",
    legend: {orient: "bottom", direction: "vertical", columns: 1, labelLimit: Math.max(120, Math.min(480, Math.round(width * 0.7)))}});
  const y = {field: "metric", type: "nominal", title: null, sort: metrics, axis: {labelLimit: narrow ? Math.max(90, Math.round(width * 0.35)) : 240}};
  const yOffset = {field: "item", type: "nominal", sort: itemNames};
  const x = {field: "ratio", type: "quantitative", scale: {type: "log"}, title: narrow ? "Ratio to A (log)" : "Ratio to A (log scale; ×1 = same as A)"};
  const tooltip = [
    {field: "metric", title: "Metric"}, {field: "item", title: "Compared"}, {field: "under", title: "Under"},
    {field: "ratio_text", title: "Ratio to A"}, {field: "better", title: "Direction"}
  ];
  return {
    $schema: SCHEMA,
    title: {text: title, subtitle: narrow ? ["Points: each shared condition;", "diamond: their geometric mean"]
      : "Points: each condition both were measured under; diamond: their geometric mean"},
    width: "container",
    // the width follows the card, the height the number of metrics (a number: a step height
    // would make Vega-Lite warn that it drops "fit-y")
    height: Math.max(1, metrics.length) * (8 + 14 * Math.max(1, itemNames.length)),
    data: {values: points},
    layer: [
      {mark: {type: "point", filled: true, size: 30, opacity: 0.55},
        encoding: {x, y, yOffset, color, tooltip: [...tooltip, {field: "value_text", title: "Value"}, {field: "baseline_text", title: "A's value"}]}},
      {data: {values: summaries}, mark: {type: "point", shape: "diamond", filled: true, size: 110, stroke: "#222", strokeWidth: 0.8},
        encoding: {x, y, yOffset, color, tooltip: [...tooltip, {field: "range_text", title: "Range"}]}},
      // the baseline: x 1 = same as A
      {data: {values: [{ratio: 1}]}, mark: {type: "rule", color: "#888", strokeDash: [4, 3]}, encoding: {x: {field: "ratio", type: "quantitative"}}}
    ]
  };
}
