// The comparisons the warehouse already made (marts.fct_condition_quotients and
// marts.fct_sweep_quotient_summaries), shaped for the Compare page: what changing one condition
// did to a device, and how a device-vs-device quotient moves across a sweep. Pure functions, no
// DOM: the page reads the marts' numbers, it never recomputes them.

/** "k=v; k=v" (the marts' condition lists) as an object, leaving out "n/a". */
export function parseConditions(text) {
  const out = {};
  for (const part of String(text ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key && value && value !== "n/a") out[key] = value;
  }
  return out;
}

const CONDITION_WORDS = {
  db_config: "DB configuration", db_server: "DB server", page_size: "page size", host: "host",
  layout: "drive layout", processes: "processes per drive", measurement_area: "measurement area",
  connections: "connections", buffer_pool: "buffer pool", outstanding_ios: "outstanding IOs"
};
const FIELD_WORDS = {
  db_config_id: "config", db_server: "server", page_size_kib: "page KiB", host_id: "host", study_id: "study",
  buffer_pool_gib: "buffer pool GiB", connections: "connections", warehouses: "warehouses", kit: "kit",
  array_layout: "layout", device_count: "drives", processes_per_device: "processes per drive", profile_id: "profile",
  direction: "direction", outstanding_ios: "outstanding IOs", measurement_area: "area", source_section: "section",
  ioengine: "ioengine", is_direct_io: "direct IO", source_kind: "source"
};

/** Words for a condition kind ("page_size" -> "page size"). */
export const conditionWord = (kind) => CONDITION_WORDS[kind] ?? String(kind ?? "").replaceAll("_", " ");

/** Words for a condition field ("buffer_pool_gib" -> "buffer pool GiB"). */
export const fieldWord = (field) => FIELD_WORDS[field] ?? String(field ?? "").replaceAll("_", " ");

/** "page_size_kib=4; db_config_id=percona_page4k" -> "page KiB 4, config percona_page4k". */
export function sideText(text) {
  return Object.entries(parseConditions(text)).map(([k, v]) => `${fieldWord(k)} ${v}`).join(", ");
}

const UNIT_OF_FIELD = {page_size_kib: "KiB", buffer_pool_gib: "GiB"};

/**
 * The two sides of a condition quotient as people say them: "4 KiB vs 16 KiB" when both sides
 * set the one field the comparison varies, else each side in full ("config x, page KiB 4 vs ...").
 */
export function pairText(conditionA, conditionB) {
  const a = Object.entries(parseConditions(conditionA));
  const b = Object.entries(parseConditions(conditionB));
  if (a.length === 1 && b.length === 1 && a[0][0] === b[0][0]) {
    const unit = UNIT_OF_FIELD[a[0][0]];
    const value = (v) => (unit ? `${v} ${unit}` : v);
    return `${value(a[0][1])} vs ${value(b[0][1])}`;
  }
  return `${sideText(conditionA)} vs ${sideText(conditionB)}`;
}

/** Geometric mean of positive numbers (null when there are none). */
function geomean(values) {
  const positive = values.filter((v) => typeof v === "number" && v > 0);
  return positive.length ? Math.exp(positive.reduce((s, v) => s + Math.log(v), 0) / positive.length) : null;
}

/**
 * Condition quotients of the chosen devices, one row per (device, condition varied, side A,
 * side B, metric, study or host), over every setting of the conditions held equal: how many
 * pairs, the lowest, highest and geometric-mean quotient, the widest half-range the printed
 * precision allows one pair (precision_pct, ± % of the quotient), and which
 * held-equal conditions took several values (e.g. 12 buffer pool sizes).
 * Only one orientation of each pair is kept (side A sorts before side B), so nothing is listed twice.
 */
export function conditionSummaries(rows, deviceIds, {metrics = null, metricOrder = []} = {}) {
  const rank = (m) => (metricOrder.includes(m) ? metricOrder.indexOf(m) : metricOrder.length);
  const wanted = new Set(deviceIds);
  const groups = new Map();
  for (const r of rows) {
    if (!wanted.has(r.device_id) || (metrics && !metrics.includes(r.metric))) continue;
    if (!(typeof r.quotient === "number" && Number.isFinite(r.quotient))) continue;
    if (String(r.condition_a).localeCompare(String(r.condition_b), "en", {numeric: true}) > 0) continue;
    const where = r.study_id ? `study: ${r.study_id}` : r.host_id ? `host: ${r.host_id}` : "";
    const key = [r.device_id, r.varied_condition, r.condition_a, r.condition_b, r.metric, where].join("\u0000");
    if (!groups.has(key)) {
      groups.set(key, {device_id: r.device_id, varied_condition: r.varied_condition, condition_a: r.condition_a,
                       condition_b: r.condition_b, metric: r.metric, where, higher_is_better: r.higher_is_better, rows: []});
    }
    groups.get(key).rows.push(r);
  }
  return [...groups.values()].map((g) => {
    const quotients = g.rows.map((r) => r.quotient);
    const settings = new Map();
    for (const r of g.rows) {
      for (const [k, v] of Object.entries(parseConditions(r.shared_conditions))) {
        if (!settings.has(k)) settings.set(k, new Set());
        settings.get(k).add(v);
      }
    }
    const varying = [...settings].filter(([, values]) => values.size > 1).map(([k, values]) => ({field: k, count: values.size}));
    // Precision: the widest half-range the printed digits allow any one pair, as a share of its quotient
    // (the spread across settings is quotient_min .. quotient_max, a different thing).
    const halfRanges = g.rows.filter((r) => typeof r.quotient_low === "number" && typeof r.quotient_high === "number" && r.quotient > 0)
      .map((r) => ((r.quotient_high - r.quotient_low) / 2 / r.quotient) * 100);
    return {
      device_id: g.device_id, varied_condition: g.varied_condition, metric: g.metric, where: g.where,
      side_a: sideText(g.condition_a), side_b: sideText(g.condition_b), pair: pairText(g.condition_a, g.condition_b), higher_is_better: g.higher_is_better,
      pairs: g.rows.length, varying,
      quotient_min: Math.min(...quotients), quotient_max: Math.max(...quotients), quotient_geomean: geomean(quotients),
      precision_pct: halfRanges.length === g.rows.length ? Math.max(...halfRanges) : null,
      is_approx: g.rows.some((r) => r.is_approx),
      provenance: [...new Set(g.rows.map((r) => r.provenance).filter(Boolean))].slice(0, 3).join(" | ")
    };
  }).sort((x, y) => deviceIds.indexOf(x.device_id) - deviceIds.indexOf(y.device_id) ||
    String(x.varied_condition).localeCompare(String(y.varied_condition)) || rank(x.metric) - rank(y.metric) ||
    String(x.metric).localeCompare(String(y.metric)) ||
    String(x.side_a).localeCompare(String(y.side_a), "en", {numeric: true}));
}

/**
 * Sweep summaries that concern the chosen devices: device pairs in the order chosen (A before
 * B, so quotients read "A / B"), and condition pairs of each chosen device (one orientation).
 * Each row keeps the mart's numbers and says what was held fixed.
 */
export function sweepSummaries(rows, deviceIds, {metrics = null, metricOrder = []} = {}) {
  const order = new Map(deviceIds.map((id, i) => [id, i]));
  const rank = (m) => (metricOrder.includes(m) ? metricOrder.indexOf(m) : metricOrder.length);
  return rows.filter((r) => (!metrics || metrics.includes(r.metric)) && (
    r.comparison_family === "device"
      ? order.has(r.device_a_id) && order.has(r.device_b_id) && order.get(r.device_a_id) < order.get(r.device_b_id)
      : order.has(r.device_a_id) && String(r.side_a).localeCompare(String(r.side_b), "en", {numeric: true}) < 0))
    .map((r) => {
      const fixed = parseConditions(r.fixed_conditions);
      delete fixed.source_kind;
      return {...r, fixed: Object.entries(fixed).filter(([k]) => k !== "study_id" && k !== "host_id")
        .map(([k, v]) => `${fieldWord(k)} ${v}`).join(", "),
        where: r.study_id ? `study: ${r.study_id}` : r.host_id ? `host: ${r.host_id}` : ""};
    })
    .sort((x, y) => String(x.comparison_family).localeCompare(String(y.comparison_family)) ||
      (order.get(x.device_a_id) - order.get(y.device_a_id)) || (order.get(x.device_b_id) - order.get(y.device_b_id)) ||
      rank(x.metric) - rank(y.metric) || String(x.metric).localeCompare(String(y.metric)) ||
      String(x.fixed).localeCompare(String(y.fixed)));
}
