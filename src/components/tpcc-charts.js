// TPC-C chart specs: rows of marts.fct_tpcc_results / fct_tpcc_intervals in, Vega-Lite out.
// Rows must be decorated (charts.js decorate) and carry `device_id`, `device_label` and `setup`.
import {SCHEMA, barChart, chartTitle, lineChart, tooltip, tooltipOf} from "./charts.js";
import {TPCC_CONDITIONS, conditionsText, varyingFields} from "./compare-logic.js";

export const X_AXES = {
  connections: {field: "connections", title: "Connections (client threads)", scale: {type: "log", base: 2}},
  buffer_pool_gib: {field: "buffer_pool_gib", title: "InnoDB buffer pool (GiB)"},
  warehouses: {field: "warehouses", title: "Warehouses"}
};

/** What a TPC-C point's tooltip says besides device, conditions, x and y (known fields only). */
const CONTEXT = [
  ["db_server", "DB server"],
  ["db_config_id", "DB config"],
  ["kit", "Benchmark kit"],
  ["warehouses", "Warehouses"],
  ["connections", "Connections"],
  ["buffer_pool_gib", "Buffer pool (GiB)"],
  ["page_size_kib", "Page size (KiB)"],
  ["data_device_count", "Data devices"],
  ["array_layout", "Array layout"],
  ["host_id", "Host"],
  ["result_status", "Result"]
];

function context(xField) {
  return CONTEXT.filter(([f]) => f !== xField);
}

/**
 * One metric against the chosen x axis: points per device, lines only between consecutive
 * measured levels (see charts.js segmentRows; pass `ladders` from the page's whole data).
 * `yScale`: "log" | "linear" | undefined (auto). Rows with `_knee` are ringed when `knee`.
 */
export function metricChart(rows, {x = "connections", y, yTitle, title, subtitle, scale, yScale, ladders = null, knee = false}) {
  const xAxis = X_AXES[x] ?? X_AXES.connections;
  const data = rows.filter((r) => typeof r[xAxis.field] === "number");
  // Log scale for wide sweeps (1 ... 256 connections), linear for narrow ones (50 ... 200) and
  // whenever a value is not positive.
  const xs = data.map((r) => r[xAxis.field]);
  const wide = xs.length && Math.min(...xs) > 0 && Math.max(...xs) / Math.min(...xs) >= 8;
  const xSpec = xAxis.scale?.type === "log" && !wide ? {...xAxis, scale: undefined} : xAxis;
  return lineChart({
    rows: data,
    title,
    subtitle,
    x: xSpec,
    y: {field: y, title: yTitle},
    conditions: TPCC_CONDITIONS,
    ladders,
    knee,
    yScale: yScale ?? scale?.type,
    tip: context(xAxis.field)
  });
}

/** New-Order per interval over time for the chosen series: colour the device, shape the rest. */
export function intervalsChart(rows, {y = "new_order_per_min", yTitle = "New-Order transactions per minute", title, yScale}) {
  return lineChart({
    rows,
    title,
    x: {field: "t_s", title: "Time since start of the run (s)"},
    y: {field: y, title: yTitle},
    conditions: [["source_kind", "source"], ["connections", "connections"], ["study_id", "study"], ["run_id", "run"], ["series_label", "series"]],
    join: "all",
    yScale,
    tip: [["connections", "Connections"], ["series_label", "Series"]],
    points: rows.length <= 600,
    conditionsTitle: "Series"
  });
}

/** Device names for the matrix axes: the catalog label without its "(interface, capacity)". */
function shortName(label) {
  return String(label ?? "").replace(/\s*\([^)]*\)\s*$/, "") || String(label);
}

/**
 * Device x device heatmap of quotient cells (compare-logic quotientCells): the cell text is
 * A / B at 3 significant digits; blue where A is higher, red where lower.
 * `scopeText`: the setup and level the cells come from ("at 100 connections · study ...");
 * `levelText`: a level as the tooltip names it ("100 connections").
 */
export function quotientHeatmap(cells, {title, metricTitle, scopeText, levelText = String}) {
  const short = new Map();
  for (const c of cells) for (const l of [c.numerator, c.denominator]) short.set(l, shortName(l));
  // Two devices whose short names collide keep their full labels.
  const counts = new Map();
  for (const s of short.values()) counts.set(s, (counts.get(s) ?? 0) + 1);
  const axisName = (l) => (counts.get(short.get(l)) > 1 ? l : short.get(l));
  const data = cells.map((c) => ({
    ...c,
    a_name: axisName(c.numerator),
    b_name: axisName(c.denominator),
    label: quotientText(c.geomean) + (c.approx ? "≈" : ""),
    log2: Math.log2(c.geomean),
    _tip: tooltipOf({...c, levels_text: c.levels.map(levelText).join(", ")}, [
      ["numerator", "A"], ["denominator", "B"],
      [() => `${quotientText(c.geomean)}×`, c.n > 1 ? "A / B (geometric mean)" : "A / B"],
      [() => (c.n > 1 ? `${quotientText(c.min)}× – ${quotientText(c.max)}×` : null), "range"],
      [() => (c.n > 1 ? c.n : null), "pairs matched"],
      ["levels_text", "at load"],
      [() => (c.setup_count > 1 ? c.setup_count : null), "setups"],
      [() => (c.approx ? "yes" : null), "uses approximate figures"],
      ["provenance", "Provenance"]
    ])
  }));
  const extent = Math.max(1, ...data.map((d) => Math.abs(d.log2)));
  const enc = {
    // Names are never cut (they are what differs); rotated labels hang down-left, inside the
    // chart, so the last column's name is never clipped.
    x: {field: "b_name", type: "nominal", title: null, axis: {labelAngle: -40, labelLimit: 0}},
    y: {field: "a_name", type: "nominal", title: null, axis: {labelLimit: 0}}
  };
  return {
    $schema: SCHEMA,
    title: chartTitle(title, `row device A ÷ column device B, of ${metricTitle}${scopeText ? ` ${scopeText}` : ""}`,
      "blue: A higher, red: A lower; ≈ uses approximate figures"),
    width: "container",
    // A numeric height (30 px a row): Vega-Lite warns about a "container" width with a step height.
    height: 30 * Math.max(1, new Set(data.map((d) => d.a_name)).size),
    data: {values: data},
    layer: [
      {
        mark: {type: "rect", stroke: "white", tooltip: {expr: "datum._tip"}},
        encoding: {
          ...enc,
          color: {field: "log2", type: "quantitative", legend: null,
                  scale: {scheme: "redblue", domain: [-extent, extent], reverse: false}}
        }
      },
      {
        mark: {type: "text", fontSize: new Set(data.map((d) => d.b_name)).size > 4 ? 9 : 11, tooltip: {expr: "datum._tip"}},
        encoding: {
          ...enc,
          text: {field: "label"},
          color: {condition: {test: "abs(datum.log2) > 0.6 * " + extent, value: "white"}, value: "black"}
        }
      }
    ],
    config: {axis: {labelLimit: 0}}
  };
}

/** A quotient at 3 significant digits (2.46, 180, 0.00554). */
export function quotientText(q) {
  if (typeof q !== "number" || !Number.isFinite(q)) return "—";
  return new Intl.NumberFormat("en-US", {maximumSignificantDigits: 3}).format(q);
}

/**
 * The metric against the x axis when results state it; otherwise (figures printed without a
 * load level, e.g. a study's single IOPS table) bars per set of conditions, so no figure is hidden.
 */
export function metricOrBars(rows, {x = "connections", y, yTitle, title, subtitle, yScale, ladders = null, knee = false}) {
  const xField = (X_AXES[x] ?? X_AXES.connections).field;
  const withY = rows.filter((r) => typeof r[y] === "number");
  if (withY.length === 0 || withY.some((r) => typeof r[xField] === "number")) {
    return metricChart(rows, {x, y, yTitle, title, subtitle, yScale, ladders, knee});
  }
  const vary = varyingFields(withY, TPCC_CONDITIONS.map(([f]) => f).filter((f) => f !== xField));
  const data = withY.map((r) => ({...r, conditions_label: conditionsText(r, vary) || r.db_config_id || "one set of conditions"}));
  return barChart({rows: data, title, subtitle: `${subtitle ? `${subtitle} · ` : ""}no load level (${xField.replaceAll("_", " ")}) is stated for these figures`,
    x: {field: "conditions_label", title: "Conditions"}, y: {field: y, title: yTitle}, yScale, tip: context(null)});
}

export {tooltip};
