// Vega-Lite building blocks shared by every chart: how published, measured and synthetic
// figures look, how approximate figures are marked, tooltips with exact values and
// provenance, and a generic line-with-points chart. Pure functions: rows in, specs out.

export const SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json";
export const KINDS = ["measured", "published", "synthetic"];
export const APPROX_LABELS = ["exact", "approximate (read from prose)"];
// Tooltips show values as stored: up to 10 significant digits, trailing zeros trimmed.
export const EXACT = ",.10~g";

/** Point shape by source kind (same everywhere, with its own legend). */
export const kindShape = {
  field: "source_kind", type: "nominal", title: "Source",
  scale: {domain: KINDS, range: ["circle", "square", "triangle-up"]}
};

/** Line dash by source kind: measured solid, published dashed, synthetic dotted. */
export const kindDash = {
  field: "source_kind", type: "nominal", title: "Source",
  scale: {domain: KINDS, range: [[1, 0], [6, 3], [2, 2]]}
};

/** Approximate figures (read from prose) are drawn hollow. */
export const approxFill = {
  field: "figure", type: "nominal", title: "Figure",
  scale: {domain: APPROX_LABELS, range: [1, 0]}
};

/** Tooltip entries for provenance, appended to every chart's tooltip. */
export const provenanceTooltip = [
  {field: "source_kind", title: "Source"},
  {field: "figure", title: "Figure"},
  {field: "run_id", title: "Run"},
  {field: "provenance", title: "Provenance"}
];

/**
 * Copy rows adding the fields every chart relies on: source_kind (default "measured"),
 * figure ("exact" / "approximate ..."), provenance (falls back to source_path) and series.
 */
export function decorate(rows, {series = null} = {}) {
  return rows.map((r) => {
    const kind = r.source_kind ?? r.run_kind ?? (r.is_synthetic ? "synthetic" : "measured");
    const approx = Boolean(r.is_approx ?? r.approx);
    const out = {
      ...r,
      source_kind: kind,
      figure: APPROX_LABELS[approx ? 1 : 0],
      provenance: r.provenance ?? r.source ?? r.source_path ?? null
    };
    if (series) out.series = typeof series === "function" ? series(r) : r[series];
    return out;
  });
}

/** Tooltip list from [field, title, format?] triples, plus provenance. */
export function tooltip(entries) {
  const seen = new Set();
  return [
    ...entries.map(([field, title, format]) => ({field, title, ...(format ? {format} : {})})),
    ...provenanceTooltip
  ].filter((t) => !seen.has(t.field) && seen.add(t.field));
}

/**
 * Line-with-points chart: one line per `color` series, points shaped by source kind and
 * hollow when approximate, dashed lines for published series.
 * `x`, `y`: {field, title (with unit), scale?, type?}. Rows with a null y or x are dropped.
 */
export function lineChart({rows, title, subtitle, x, y, color = {field: "series", title: "Series"},
                           extraTooltip = [], height = 320, order = null, points = true}) {
  const data = rows.filter((r) => isNum(r[y.field]) && r[x.field] !== null && r[x.field] !== undefined);
  const xEnc = {field: x.field, type: x.type ?? "quantitative", title: x.title, ...(x.scale ? {scale: x.scale} : {}),
    ...(x.axis ? {axis: x.axis} : {}), ...(x.sort ? {sort: x.sort} : {})};
  const yEnc = {field: y.field, type: "quantitative", title: y.title, ...(y.scale ? {scale: y.scale} : {})};
  // Past MAX_LEGEND_SERIES a legend is a wall of names taller than the chart (and slow to lay
  // out): the tooltip names each series instead, and the subtitle says so.
  const seriesCount = new Set(data.map((r) => r[color.field])).size;
  const legendHidden = seriesCount > MAX_LEGEND_SERIES;
  const colorEnc = {field: color.field, type: "nominal", title: color.title, legend: legendHidden ? null : SERIES_LEGEND,
    ...(color.scale ? {scale: color.scale} : {})};
  // The note does not count the series: a spec that does not change with the rows lets a filter
  // change update the drawn chart in place (vega.js).
  const legendNote = legendHidden ? `over ${MAX_LEGEND_SERIES} series: no legend, point at a line for its name` : null;
  const sub = [subtitle, legendNote].filter(Boolean).join(" · ");
  const tip = tooltip([
    [color.field, color.title],
    [x.field, x.title, x.type === "quantitative" || !x.type ? EXACT : undefined],
    [y.field, y.title, EXACT],
    ...extraTooltip
  ]);
  const layers = [
    {
      mark: {type: "line", strokeWidth: 1.8},
      encoding: {
        x: xEnc, y: yEnc, color: colorEnc, strokeDash: kindDash,
        detail: {field: color.field},
        ...(order ? {order: {field: order, type: "quantitative"}} : {})
      }
    }
  ];
  if (points) {
    layers.push({
      mark: {type: "point", filled: true, size: 55, strokeWidth: 1.5},
      encoding: {x: xEnc, y: yEnc, color: colorEnc, shape: kindShape, fillOpacity: approxFill, tooltip: tip}
    });
  }
  return {
    $schema: SCHEMA,
    title: sub ? {text: title, subtitle: sub} : title,
    width: "container",
    height,
    data: {values: data},
    layer: layers,
    resolve: {legend: {strokeDash: "shared"}}
  };
}

/** Grouped bars: one bar per `color` within each `x` category. */
export function barChart({rows, title, subtitle, x, y, color = {field: "series", title: "Series"},
                          extraTooltip = [], height = 300}) {
  const data = rows.filter((r) => isNum(r[y.field]));
  return {
    $schema: SCHEMA,
    title: subtitle ? {text: typeof title === "string" ? title : title.text, subtitle} : title,
    width: "container",
    height,
    data: {values: data},
    mark: {type: "bar", strokeWidth: 1.5},
    encoding: {
      x: {field: x.field, type: x.type ?? "ordinal", title: x.title, ...(x.sort ? {sort: x.sort} : {})},
      xOffset: {field: color.field},
      y: {field: y.field, type: "quantitative", title: y.title, ...(y.scale ? {scale: y.scale} : {})},
      color: {field: color.field, type: "nominal", title: color.title, legend: SERIES_LEGEND},
      fillOpacity: {field: "figure", type: "nominal", title: "Figure", scale: {domain: APPROX_LABELS, range: [1, 0.25]}},
      stroke: {field: color.field, type: "nominal", legend: null},
      strokeDash: kindDash,
      tooltip: tooltip([[color.field, color.title], [x.field, x.title], [y.field, y.title, EXACT], ...extraTooltip])
    }
  };
}

/** Most series a line chart lists in its legend. */
export const MAX_LEGEND_SERIES = 40;

/** Series legends go under the chart: their labels name devices and conditions and are long. */
export const SERIES_LEGEND = {orient: "bottom", direction: "vertical", columns: 1, labelLimit: 560, symbolLimit: 60};

export function isNum(v) {
  return typeof v === "number" && Number.isFinite(v);
}
