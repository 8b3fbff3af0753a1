// TPC-C chart specs: rows of marts.fct_tpcc_results / fct_tpcc_intervals in, Vega-Lite out.
// Rows must be decorated (charts.js decorate) and carry `series` and `device_label`.
import {EXACT, SCHEMA, barChart, lineChart, tooltip} from "./charts.js";

export const X_AXES = {
  connections: {field: "connections", title: "Connections (client threads)", scale: {type: "log", base: 2}},
  buffer_pool_gib: {field: "buffer_pool_gib", title: "InnoDB buffer pool (GiB)"},
  warehouses: {field: "warehouses", title: "Warehouses"}
};

const CONTEXT = [
  ["device_id", "Device id"],
  ["db_server", "DB server"],
  ["db_config_id", "DB config"],
  ["warehouses", "Warehouses", EXACT],
  ["connections", "Connections", EXACT],
  ["buffer_pool_gib", "Buffer pool (GiB)", EXACT],
  ["page_size_kib", "Page size (KiB)", EXACT]
];

function context(xField) {
  return CONTEXT.filter(([f]) => f !== xField);
}

/** One metric against the chosen x axis, a line per series. */
export function metricChart(rows, {x = "connections", y, yTitle, title, subtitle, scale}) {
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
    y: {field: y, title: yTitle, ...(scale ? {scale} : {})},
    color: {field: "series", title: "Device · conditions"},
    extraTooltip: context(xAxis.field),
    order: xAxis.field
  });
}

/** New-Order per interval over time for the chosen series. */
export function intervalsChart(rows, {y = "new_order_per_min", yTitle = "New-Order transactions per minute", title}) {
  return lineChart({
    rows,
    title,
    x: {field: "t_s", title: "Time since start of the run (s)"},
    y: {field: y, title: yTitle},
    color: {field: "series", title: "Device · connections · source"},
    extraTooltip: [["connections", "Connections", EXACT]],
    order: "t_s",
    points: rows.length <= 600
  });
}

/** Device x device heatmap of quotient cells from compare-logic.quotientMatrix. */
export function quotientHeatmap(cells, {title, metricTitle}) {
  const data = cells.map((c) => ({
    ...c,
    label: `${c.geomean >= 10 ? c.geomean.toFixed(1) : c.geomean.toFixed(2)}×${c.approx ? " ≈" : ""}`,
    log2: Math.log2(c.geomean)
  }));
  const extent = Math.max(1, ...data.map((d) => Math.abs(d.log2)));
  const enc = {
    x: {field: "denominator", type: "nominal", title: "… divided by this device (B)", axis: {labelAngle: -30, labelLimit: 180}},
    y: {field: "numerator", type: "nominal", title: "This device (A) …", axis: {labelLimit: 220}}
  };
  return {
    $schema: SCHEMA,
    title: {text: title, subtitle: `A / B of ${metricTitle}, geometric mean over every condition both were tested under; ≈ marks approximate figures`},
    width: "container",
    height: {step: 34},
    data: {values: data},
    layer: [
      {
        mark: {type: "rect", stroke: "white"},
        encoding: {
          ...enc,
          color: {field: "log2", type: "quantitative", title: "log₂(A / B)",
                  scale: {scheme: "redblue", domain: [-extent, extent], reverse: false}},
          tooltip: [
            {field: "numerator", title: "A"},
            {field: "denominator", title: "B"},
            {field: "geomean", title: "A / B (geometric mean)", format: EXACT},
            {field: "min", title: "lowest A / B", format: EXACT},
            {field: "max", title: "highest A / B", format: EXACT},
            {field: "n", title: "matched conditions"},
            {field: "approx", title: "uses approximate figures"},
            {field: "provenance", title: "Provenance"}
          ]
        }
      },
      {
        mark: {type: "text", fontSize: 12},
        encoding: {
          ...enc,
          text: {field: "label"},
          color: {condition: {test: "abs(datum.log2) > 0.6 * " + extent, value: "white"}, value: "black"}
        }
      }
    ]
  };
}

/**
 * The metric against the x axis when results state it; otherwise (figures printed without a
 * load level, e.g. a study's single IOPS table) bars per DB configuration, so no figure is hidden.
 */
export function metricOrBars(rows, {x = "connections", y, yTitle, title, subtitle}) {
  const xField = (X_AXES[x] ?? X_AXES.connections).field;
  const withY = rows.filter((r) => typeof r[y] === "number");
  if (withY.length === 0 || withY.some((r) => typeof r[xField] === "number")) {
    return metricChart(rows, {x, y, yTitle, title, subtitle});
  }
  const data = withY.map((r) => ({...r, config_label: r.db_config_id ?? "config not stated"}));
  return barChart({rows: data, title: {text: title, subtitle: `no load level (${xField.replaceAll("_", " ")}) is stated for these figures`},
    x: {field: "config_label", title: "DB config"}, y: {field: y, title: yTitle},
    color: {field: "series", title: "Device · conditions"}, extraTooltip: context(null)});
}

export {tooltip};
