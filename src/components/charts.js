// Vega-Lite building blocks shared by every chart. Pure functions: rows in, specs out.
//
// What each visual channel means, on every page:
//   colour        the device, and nothing else (palette.js: one colour per device everywhere)
//   shape + dash  the conditions that differ between the lines of the chart (source, study or
//                 host, DB config, page size, layout ...): one "Conditions" legend
//   hollow point  an approximate figure (read from prose)
//   ringed point  the knee of a sweep (where the next step stops paying)
// A line joins two points only when they are consecutive measured levels of one series
// (segmentRows). Tooltips list only the fields a point has, numbers at 3-4 significant digits.
import {conditionsText, varyingFields} from "./compare-logic.js";
import {withFields} from "./data.js";
import {deviceColorer} from "./palette.js";

export const SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json";
export const KINDS = ["measured", "published", "synthetic"];
export const APPROX_LABELS = ["exact", "approximate (read from prose)"];
/** A d3 format of up to 10 significant digits (kept for callers that format exact values). */
export const EXACT = ",.10~g";

/** Most devices a chart lists in its colour legend; past it the tooltip names each line. */
export const MAX_LEGEND_SERIES = 40;
/** Most condition groups told apart by shape and dash (the shape range below); past it the tooltip does. */
export const MAX_CONDITION_SHAPES = 8;
const SHAPES = ["circle", "square", "triangle-up", "diamond", "cross", "triangle-down", "triangle-right", "triangle-left"];
const DASHES = [[1, 0], [6, 3], [2, 2], [8, 3, 2, 3], [1, 3], [12, 4], [4, 2, 1, 2, 1, 2], [10, 2, 2, 2, 2, 2]];
/** Colour of series that belong to no device (CPU busy, a run's own metrics). */
export const NEUTRAL_COLOR = "#b0b0b0";
/** Values spanning more than this factor open on a log axis. */
export const LOG_ABOVE_SPAN = 100;
/** Values spanning at least this factor get a log / linear switch. */
export const SWITCH_FROM_SPAN = 10;
// Legend labels are wrapped to this many characters: about 220 px of 11 px text, so a legend
// (which starts where the plot does, right of the y axis) fits a 300 px chart on a 390 px phone.
const WRAP_CHARS = 36;

// ---------------------------------------------------------------------------------------------
// Device colours. The build's palette slots (device_colors.json) are registered once per page
// by device-colors.js (vega.js imports it); until then, and in unit tests, a device gets the
// stable hash slot palette.js gives ids the build did not colour.
let registeredColorOf = deviceColorer(null);

/** Use `colorOf` (device_id -> colour) as every chart's default device colour. */
export function useDeviceColors(colorOf) {
  registeredColorOf = colorOf;
}

/** The colour of a device id, as every chart draws it. */
export function colorOfDevice(id) {
  return registeredColorOf(id);
}

// ---------------------------------------------------------------------------------------------
// Numbers and tooltips.

const INTEGER = new Intl.NumberFormat("en-US", {maximumFractionDigits: 0});
const SIG4 = new Intl.NumberFormat("en-US", {maximumSignificantDigits: 4});
const SIG3 = new Intl.NumberFormat("en-US", {maximumSignificantDigits: 3});

/**
 * A number as people read it: whole numbers and anything of 1,000 or more as an integer with
 * thousands separators (21,614.12862 -> "21,614"), 1 to 1,000 at 4 significant digits
 * (756.73 -> "756.7"), below 1 at 3 (0.00368934 -> "0.00369"). null for anything not a finite number.
 */
export function fmtNumber(value) {
  if (typeof value !== "number" || !Number.isFinite(value)) return null;
  const a = Math.abs(value);
  if (Number.isInteger(value) || a >= 1000) return INTEGER.format(Math.round(value));
  return (a >= 1 ? SIG4 : SIG3).format(value);
}

/** Text of one tooltip value, or null when there is nothing to say (null, "", NaN ...). */
function tipText(value, unit) {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value === "number") {
    const text = fmtNumber(value);
    return text === null ? null : unit ? `${text} ${unit}` : text;
  }
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) {
    const parts = value.map((v) => tipText(v)).filter((t) => t !== null);
    return parts.length ? parts.join(", ") : null;
  }
  const text = String(value);
  return /^(null|undefined|NaN)$/.test(text) ? null : text;
}

/** Provenance entries every point's tooltip ends with. */
export const PROVENANCE_TIP = [
  ["source_kind", "Source"],
  [(r) => (r.figure === APPROX_LABELS[1] ? r.figure : null), "Figure"],
  ["study_id", "Study"],
  ["run_id", "Run"],
  ["provenance", "Provenance"]
];

/**
 * A point's tooltip: {title: text} for each [field or row => value, title, unit?] entry the row
 * has a value for, in order (a title given twice keeps its first value), then the provenance.
 * Vega shows it as a table; nothing unknown is listed.
 */
export function tooltipOf(row, entries) {
  const tip = {};
  for (const [field, title, unit] of [...entries, ...PROVENANCE_TIP]) {
    if (Object.hasOwn(tip, title)) continue;
    const text = tipText(typeof field === "function" ? field(row) : row[field], unit);
    if (text !== null) tip[title] = text;
  }
  return tip;
}

/**
 * Vega-Lite tooltip entries (kept for charts that use field lists). Prefer tooltipOf, which
 * leaves out fields a point does not have.
 */
export function tooltip(entries) {
  const seen = new Set();
  return [
    ...entries.map(([field, title, format]) => ({field, title, ...(format ? {format} : {})})),
    {field: "source_kind", title: "Source"}, {field: "figure", title: "Figure"},
    {field: "run_id", title: "Run"}, {field: "provenance", title: "Provenance"}
  ].filter((t) => !seen.has(t.field) && seen.add(t.field));
}

/**
 * Copy rows adding the fields every chart relies on: source_kind (default "measured"),
 * figure ("exact" / "approximate ..."), provenance (falls back to source_path) and series.
 */
export function decorate(rows, {series = null} = {}) {
  return withFields(rows, (r) => {
    const kind = r.source_kind ?? r.run_kind ?? (r.is_synthetic ? "synthetic" : "measured");
    const approx = Boolean(r.is_approx ?? r.approx);
    const out = {
      source_kind: kind,
      figure: APPROX_LABELS[approx ? 1 : 0],
      provenance: r.provenance ?? r.source ?? r.source_path ?? null
    };
    if (series) out.series = typeof series === "function" ? series(r) : r[series];
    return out;
  });
}

// ---------------------------------------------------------------------------------------------
// Lines: which points a line may join.

/**
 * The levels of `x` measured in each setup (study or host): {setup -> ascending levels}. Pass
 * the page's whole data (not only what one chart draws), so a series that skipped levels its
 * study measured elsewhere is not joined across them.
 */
export function levelLadders(rows, x, setupOf = (r) => r.setup ?? "") {
  const sets = new Map();
  for (const r of rows) {
    const v = r[x];
    if (!isNum(v)) continue;
    const key = setupOf(r);
    if (!sets.has(key)) sets.set(key, new Set());
    sets.get(key).add(v);
  }
  return new Map([...sets].map(([k, set]) => [k, [...set].sort((a, b) => a - b)]));
}

/**
 * The joining rule. Each row gets `_segment`: rows of one series (`seriesOf`) at two levels of
 * `x` share a segment (and a line joins them) only when the two levels are neighbours on the
 * ladder of the series' setup (levelLadders): no level between them was measured, by this
 * series or any other of its study or host. Two published figures at 1 and 512 outstanding IOs
 * stay two points; a sweep 1, 2, 4 ... 256 is one line. Without a ladder for a setup the
 * series' own levels are the ladder (every step joins). `join: "all"` joins every step (time
 * series); a function (level, next level) -> boolean decides itself. Each row also gets `_line_y`, the mean of `y` at its series and level, so repeat
 * results at one level meet the line at their mean instead of a vertical zigzag.
 */
export function segmentRows(rows, {x, y, seriesOf, ladders = null, setupOf = (r) => r.setup ?? "", join = "ladder"}) {
  const bySeries = new Map();
  for (const r of rows) {
    const key = seriesOf(r);
    if (!bySeries.has(key)) bySeries.set(key, []);
    bySeries.get(key).push(r);
  }
  const out = [];
  const extra = new Map();
  for (const [key, members] of bySeries) {
    const levels = [...new Set(members.map((r) => r[x]))].sort((a, b) => (isNum(a) && isNum(b) ? a - b : String(a).localeCompare(String(b))));
    const ladder = join === "ladder" && ladders ? ladders.get(setupOf(members[0])) : null;
    const segmentOf = new Map();
    let segment = 0;
    levels.forEach((level, i) => {
      const joined = typeof join === "function" ? join(levels[i - 1], level)
        : join !== "ladder" || !ladder || neighbours(ladder, levels[i - 1], level);
      if (i > 0 && !joined) segment += 1;
      segmentOf.set(level, segment);
    });
    const mean = new Map();
    for (const level of levels) {
      const ys = members.filter((r) => r[x] === level).map((r) => r[y]).filter(isNum);
      mean.set(level, ys.length ? ys.reduce((s, v) => s + v, 0) / ys.length : null);
    }
    for (const r of members) {
      out.push(r);
      extra.set(r, {_segment: `${key}\u001f${segmentOf.get(r[x])}`, _line_y: mean.get(r[x])});
    }
  }
  return withFields(out, (r) => extra.get(r));
}

function neighbours(ladder, a, b) {
  const i = ladder.indexOf(a);
  const j = ladder.indexOf(b);
  return i >= 0 && j === i + 1;
}

// ---------------------------------------------------------------------------------------------
// Scales, titles and legends.

/**
 * The value axis: `choice` ("log" / "linear") or, when absent, log when every value is positive
 * and they span more than LOG_ABOVE_SPAN, else linear. `offered`: whether the chart shows a
 * log / linear switch (values spanning at least SWITCH_FROM_SPAN).
 */
export function valueScale(values, choice) {
  const nums = values.filter(isNum);
  const positive = nums.filter((v) => v > 0);
  const span = positive.length ? Math.max(...positive) / Math.min(...positive) : 1;
  const auto = positive.length === nums.length && span > LOG_ABOVE_SPAN ? "log" : "linear";
  const type = choice === "log" || choice === "linear" ? choice : auto;
  return {type, auto, span, offered: positive.length > 0 && span >= SWITCH_FROM_SPAN, dropped: type === "log" ? nums.length - positive.length : 0};
}

/**
 * Break text into lines of at most `width` characters at " · " or spaces; a word longer than a
 * line (a run id) is cut after a "-", "_" or "/", or where it must.
 */
export function wrapText(text, width = WRAP_CHARS) {
  const words = String(text).split(/(?<= · )|(?<= )/).flatMap((w) => (w.length > width ? cutWord(w, width) : [w]));
  const lines = [];
  let line = "";
  for (const word of words) {
    if (line && (line + word).trimEnd().length > width) {
      lines.push(line.trimEnd());
      line = "";
    }
    line += word;
  }
  if (line.trim()) lines.push(line.trimEnd());
  return lines;
}

/** An axis title in lines that fit a phone-wide chart (a long one would widen the chart). */
export function axisTitle(text, width = 40) {
  const lines = wrapText(text ?? "", width);
  return lines.length > 1 ? lines : text;
}

function cutWord(word, width) {
  const parts = [];
  let rest = word;
  while (rest.length > width) {
    const head = rest.slice(0, width);
    const at = Math.max(head.lastIndexOf("-"), head.lastIndexOf("_"), head.lastIndexOf("/"));
    const cut = at > width / 2 ? at + 1 : width;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  return [...parts, rest];
}

/** A title whose subtitle lines never make the chart wider than a phone. */
export function chartTitle(title, ...notes) {
  const text = typeof title === "string" ? title : title?.text ?? "";
  const sub = [typeof title === "object" ? title?.subtitle : null, ...notes].flat().filter(Boolean);
  // Title and subtitle start at the chart's left edge: 40 and 46 characters fit 300 px.
  const lines = sub.flatMap((s) => wrapText(s, 46));
  return lines.length ? {text: wrapText(text, 40), subtitle: lines, anchor: "start"} : {text: wrapText(text, 40), anchor: "start"};
}

// Legends go under the chart, one above the other, left-aligned; long labels break into lines.
const LEGEND_CONFIG = {
  legend: {orient: "bottom", direction: "vertical", layout: {bottom: {anchor: "start", direction: "vertical", margin: 6}}},
  axis: {labelLimit: 0}
};
const MULTILINE = "split(datum.label, '\\n')";

/**
 * The colour encoding of a chart whose rows carry `device_id` / `device_label`: the build's
 * colour of each device, a legend of the devices drawn. Rows without a device are drawn
 * NEUTRAL_COLOR. Past MAX_LEGEND_SERIES devices, no legend (each row's colour is then taken
 * from its `_color`, so the spec does not depend on the rows and a filter change can update
 * the drawn chart in place).
 */
export function deviceColor(rows, {colorOf = colorOfDevice, title = "Device"} = {}) {
  const seen = new Map();
  for (const r of rows) {
    const label = r._device;
    if (label !== null && label !== undefined && !seen.has(label)) seen.set(label, r._color ?? colorOf(r.device_id));
  }
  if (seen.size === 0) return {value: NEUTRAL_COLOR};
  if (seen.size > MAX_LEGEND_SERIES) return {field: "_color", type: "nominal", scale: null, legend: null};
  const legend = {title, labelExpr: MULTILINE, labelLimit: 0, symbolLimit: 0, symbolType: "circle"};
  // Devices in distinct colours (the usual case): the scale takes its domain and colours from
  // the rows (`_device`, `_color`), so the spec does not depend on which devices are drawn and a
  // filter change updates the drawn chart in place. Vega pairs a data-driven range with the
  // domain by distinct colour, so two devices of one colour (from studies never shown together,
  // here side by side) get an explicit domain and range instead.
  if (new Set(seen.values()).size === seen.size) {
    return {field: "_device", type: "nominal", title, scale: {range: {field: "_color"}}, legend};
  }
  const domain = [...seen.keys()].sort((a, b) => String(a).localeCompare(String(b)));
  return {field: "_device", type: "nominal", title, scale: {domain, range: domain.map((d) => seen.get(d))}, legend};
}

/**
 * Rows ready for a device chart: `_device` (its label wrapped for the legend), `_color`,
 * `_conditions` and `_variant` (the conditions text, plain and wrapped for the legend) and
 * `_series` (device and conditions: what a line belongs to).
 * `conditions` ([[field, label]...]): the fields whose varying values are written into the
 * variant, computed over these rows only (what the chart draws); else `variant` names a field
 * that already holds it.
 */
export function deviceRows(rows, {conditions = null, exclude = [], variant = "conditions", colorOf = colorOfDevice} = {}) {
  const vary = conditions ? varyingFields(rows, conditions.map(([f]) => f).filter((f) => !exclude.includes(f))) : null;
  return withFields(rows, (r) => {
    const device = r.device_label ?? r.device_id ?? null;
    const text = vary ? conditionsText(r, vary) : r[variant] ?? "";
    return {
      _device: wrapText(device ?? "no device").join("\n"),
      _device_name: device ?? null,
      _color: r.device_id === null || r.device_id === undefined ? NEUTRAL_COLOR : colorOf(r.device_id),
      _conditions: text,
      _variant: wrapText(text).join("\n"),
      _series: [device, text].filter(Boolean).join(" · ") || "all"
    };
  });
}

/** Shape (points) and dash (lines) by conditions: one "Conditions" legend, none when they do not vary. */
function variantEncodings(rows, title = "Conditions") {
  const count = new Set(rows.map((r) => r._variant)).size;
  if (count <= 1) return {shape: null, dash: null, note: null};
  const legend = count > MAX_CONDITION_SHAPES ? null
    : {title, labelExpr: MULTILINE, labelLimit: 0, symbolLimit: 0, symbolFillColor: "#888", symbolStrokeColor: "#888"};
  return {
    shape: {field: "_variant", type: "nominal", title, scale: {range: SHAPES}, legend},
    dash: {field: "_variant", type: "nominal", title, scale: {range: DASHES}, legend: null},
    note: legend ? null : `${count} condition groups: shapes repeat, point at a point for its conditions`
  };
}

/** Each row's own device colour (`_color`), without a scale or legend. */
const OWN_COLOR = {field: "_color", type: "nominal", scale: null, legend: null};

const HOLLOW_IF_APPROX = {condition: {test: `datum.figure === '${APPROX_LABELS[1]}'`, value: 0}, value: 1};

// ---------------------------------------------------------------------------------------------
// Charts.

/**
 * Points of `y` against `x`, coloured by device, shaped by conditions, joined into lines only
 * between consecutive measured levels of one series (segmentRows). Rows with a null x or y are
 * left out.
 *   x, y:          {field, title (with unit), scale?, type?}
 *   conditions:    [[field, label]...] whose varying values tell the series of one device apart
 *                  (else each row's `conditions` text)
 *   ladders:       levelLadders of the page's data (the joining rule); join: "all" for time series
 *   tip:           tooltip entries [field, title, unit?] after device, conditions, x and y
 *   yScale:        "log" | "linear" | undefined (auto: log past LOG_ABOVE_SPAN)
 *   knee:          rows with `_knee` true get a ring (the knee of their sweep)
 */
export function lineChart({rows, title, subtitle, x, y, conditions = null, variant = "conditions", exclude = [], level = null,
                           ladders = null, join = "ladder", tip = [], extraTooltip = [], height = 300, points = true, pointSize = 55,
                           interpolate = "linear", yScale, knee = false, colorOf = colorOfDevice, conditionsTitle = "Conditions"}) {
  const drawn = rows.filter((r) => isNum(r[y.field]) && r[x.field] !== null && r[x.field] !== undefined);
  const scale = valueScale(drawn.map((r) => r[y.field]), yScale);
  const kept = scale.type === "log" ? drawn.filter((r) => r[y.field] > 0) : drawn;
  const levelField = level ?? x.field;
  const shaped = deviceRows(kept, {conditions, variant, exclude: [x.field, levelField, ...exclude], colorOf});
  const entries = [["_device_name", "Device"], ["_conditions", "Conditions"], [x.field, x.title, x.unit], [y.field, y.title, y.unit], ...tip, ...extraTooltip];
  const segmented = segmentRows(shaped, {x: levelField, y: y.field, seriesOf: (r) => r._series, ladders, join});
  const data = withFields(segmented, (r) => ({_tip: tooltipOf(r, entries)}));
  // One layer carries the device scale and its legend (the points, or the lines when there are
  // none); the others stroke each row's own colour (a channel without a scale), so no two layers
  // define the colour scale.
  const color = deviceColor(data, {colorOf});
  const own = "value" in color ? color : OWN_COLOR;
  const shapes = variantEncodings(data, conditionsTitle);
  // (a few pixels of padding, so points at the ends of the axis are not cut in half; not
  // "nice", which would stretch the padded domain to the next round tick, e.g. -0.2 or 220)
  const xEnc = {field: x.field, type: x.type ?? "quantitative", title: axisTitle(x.title), scale: {padding: 8, nice: false, ...(x.scale ?? {})},
    // plain numbers on the axis (one pinned level would otherwise read "100.000000")
    axis: {...((x.type ?? "quantitative") === "quantitative" ? {format: ",~r"} : {}), ...(x.axis ?? {})}, ...(x.sort ? {sort: x.sort} : {})};
  // Every value zero (a run without disk reads, an idle iowait): Vega's domain would be [0, 0],
  // one tick labelled "0.000000" in the middle of the chart; 0 to 1 puts the points on the floor.
  const allZero = scale.type !== "log" && drawn.length > 0 && drawn.every((r) => r[y.field] === 0);
  const yEnc = {field: y.field, type: "quantitative", title: axisTitle(y.title, 48),
    scale: {type: scale.type, ...(scale.type === "log" ? {} : {zero: y.zero ?? true}), ...(allZero ? {domain: [0, 1]} : {})}};
  const lineY = {...yEnc, field: "_line_y"};
  const notes = [
    subtitle,
    color.legend === null ? `over ${MAX_LEGEND_SERIES} devices: no legend, point at a point for its device` : null,
    shapes.note,
    scale.dropped ? `${scale.dropped} value${scale.dropped === 1 ? "" : "s"} ≤ 0 not drawn on the log axis` : null,
    drawn.some((r) => r.figure === APPROX_LABELS[1]) ? "hollow points: approximate figures" : null,
    knee && data.some((r) => r._knee) ? "ringed: the knee (the next step adds little)" : null
  ];
  const layers = [{
    mark: {type: "line", strokeWidth: 1.8, interpolate},
    encoding: {x: xEnc, y: lineY, ...(points ? {stroke: own} : {color}), detail: {field: "_segment"}, ...(shapes.dash ? {strokeDash: shapes.dash} : {}),
               order: {field: levelField, type: "quantitative"}}
  }];
  if (points) {
    layers.push({
      mark: {type: "point", filled: true, size: pointSize, strokeWidth: 1.5, tooltip: {expr: "datum._tip"}},
      // stroke as well as fill, so an approximate (hollow) point keeps its outline
      encoding: {x: xEnc, y: yEnc, color, stroke: own, fillOpacity: HOLLOW_IF_APPROX, ...(shapes.shape ? {shape: shapes.shape} : {})}
    });
  }
  if (knee) {
    layers.push({
      transform: [{filter: "datum._knee === true"}],
      mark: {type: "point", filled: false, size: 340, strokeWidth: 2, shape: "circle", tooltip: {expr: "datum._tip"}},
      encoding: {x: xEnc, y: yEnc, stroke: own}
    });
  }
  return {
    $schema: SCHEMA,
    title: chartTitle(title, ...notes),
    width: "container",
    height,
    data: {values: data},
    layer: layers,
    config: LEGEND_CONFIG,
    usermeta: {yScale: scale}
  };
}

/**
 * Bars of `y` per `x` category, one bar per device within a category (coloured by device); the
 * conditions that differ are written on the category axis.
 */
export function barChart({rows, title, subtitle, x, y, tip = [], extraTooltip = [], height = 300, yScale, colorOf = colorOfDevice}) {
  const drawn = rows.filter((r) => isNum(r[y.field]));
  const scale = valueScale(drawn.map((r) => r[y.field]), yScale);
  const kept = scale.type === "log" ? drawn.filter((r) => r[y.field] > 0) : drawn;
  const data = deviceRows(kept, {colorOf}).map((r) => ({
    ...r, _category: wrapText(r[x.field] ?? "not stated", 28).join("\n"),
    _tip: tooltipOf(r, [["_device_name", "Device"], ["_conditions", "Conditions"], [x.field, x.title], [y.field, y.title, y.unit], ...tip, ...extraTooltip])
  }));
  const color = deviceColor(data, {colorOf});
  return {
    $schema: SCHEMA,
    title: chartTitle(title, subtitle, drawn.some((r) => r.figure === APPROX_LABELS[1]) ? `${scale.type === "log" ? "pale dots" : "pale bars"}: approximate figures` : null),
    width: "container",
    height,
    data: {values: data},
    // Bars start at zero, which a log axis does not have: there each figure is a dot.
    mark: scale.type === "log" ? {type: "point", filled: true, size: 90, strokeWidth: 1.5, tooltip: {expr: "datum._tip"}}
      : {type: "bar", strokeWidth: 1.5, tooltip: {expr: "datum._tip"}},
    encoding: {
      x: {field: "_category", type: "nominal", title: axisTitle(x.title), axis: {labelAngle: 0, labelExpr: MULTILINE},
          ...(x.sort ? {sort: x.sort.map((v) => wrapText(v, 28).join("\n"))} : {})},
      xOffset: {field: "_device"},
      y: {field: y.field, type: "quantitative", title: axisTitle(y.title, 48), scale: {type: scale.type}},
      color,
      fillOpacity: {condition: {test: `datum.figure === '${APPROX_LABELS[1]}'`, value: 0.3}, value: 1},
      stroke: "value" in color ? color : OWN_COLOR
    },
    config: LEGEND_CONFIG,
    usermeta: {yScale: scale}
  };
}

export function isNum(v) {
  return typeof v === "number" && Number.isFinite(v);
}
