// Pure comparison logic shared by the TPC-C page (quotient matrix), the fio page and the
// Compare page: which conditions make two results comparable, series labels from the
// conditions that vary, ratios. No DOM; unit-tested in tests/browser/logic.test.mjs.

/** Conditions under which two TPC-C results may be divided (besides the device itself). */
export const TPCC_CONDITIONS = [
  ["setup", "study / host"],
  ["db_server", "DB server"],
  ["db_config_id", "DB config"],
  ["kit", "benchmark kit"],
  ["warehouses", "warehouses"],
  ["connections", "connections"],
  ["buffer_pool_gib", "buffer pool (GiB)"],
  ["page_size_kib", "page size (KiB)"],
  ["data_device_count", "data devices"],
  ["array_layout", "array layout"]
];

/** Conditions under which two fio results may be divided. */
export const FIO_CONDITIONS = [
  ["setup", "study / host"],
  ["profile", "load profile"],
  ["rw", "rw"],
  ["direction", "direction"],
  ["block_size", "block size"],
  ["outstanding_ios", "outstanding IOs"],
  ["array_layout", "array layout"],
  ["measurement_area", "measurement area"],
  ["ioengine", "ioengine"]
];

/** "study:<id>" for published rows, "host:<id>" for measured ones: where a result comes from. */
export function setupOf(row) {
  if (row.study_id) return `study: ${row.study_id}`;
  if (row.host_id) return `host: ${row.host_id}`;
  return row.run_id ? `run: ${row.run_id}` : "unknown setup";
}

function keyPart(v) {
  return v === null || v === undefined ? "∅" : String(v);
}

/** A comparison key over `fields` (null and undefined compare equal: "not stated"). */
export function conditionKey(row, fields) {
  return fields.map((f) => keyPart(row[f])).join("\u001f");
}

/** The condition fields whose values differ among `rows`. */
export function varyingFields(rows, fields) {
  return fields.filter((f) => new Set(rows.map((r) => keyPart(r[f]))).size > 1);
}

/**
 * Label each row's series: the device, then every condition that varies in the selection
 * (except the x field), so lines only join comparable points and the legend says why two
 * lines of one device differ.
 */
export function labelSeries(rows, {device = "device_label", conditions, exclude = []} = {}) {
  const fields = conditions.map(([f]) => f).filter((f) => !exclude.includes(f));
  const vary = varyingFields(rows, fields);
  return rows.map((r) => {
    const parts = vary.map((f) => conditionText(f, r[f]));
    return {...r, series: [r[device] ?? "unknown device", ...parts].join(" · ")};
  });
}

/** Short text for one condition value in a series label ("500 wh", "12 GiB pool"). */
export function conditionText(field, value) {
  if (value === null || value === undefined || value === "") {
    return `${field.replaceAll("_", " ")} not stated`;
  }
  switch (field) {
    case "setup": return String(value).replace(/^(study|host|run): /, "");
    case "warehouses": return `${value} wh`;
    case "connections": return `${value} conn`;
    case "buffer_pool_gib": return `${value} GiB pool`;
    case "page_size_kib": return `${value} KiB pages`;
    case "data_device_count": return `×${value}`;
    case "outstanding_ios": return `${value} outstanding`;
    default: return String(value);
  }
}

/**
 * Device x device quotients of `metric` over rows measured under the same conditions.
 * For each ordered pair (a, b) and each condition key where both have a value, q = a / b;
 * the cell summarises them: geometric mean, min, max, count, and whether any figure is approximate.
 */
export function quotientMatrix(rows, {metric, device = "device_label", conditions}) {
  const fields = conditions.map(([f]) => f);
  const groups = new Map();
  for (const r of rows) {
    const v = r[metric];
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) continue;
    const key = conditionKey(r, fields);
    if (!groups.has(key)) groups.set(key, new Map());
    const byDevice = groups.get(key);
    // Several rows of one device under one key (repeat runs): average them.
    const entry = byDevice.get(r[device]) ?? {sum: 0, n: 0, approx: false, rows: []};
    entry.sum += v;
    entry.n += 1;
    entry.approx ||= Boolean(r.is_approx);
    entry.rows.push(r);
    byDevice.set(r[device], entry);
  }
  const cells = new Map();
  for (const [key, byDevice] of groups) {
    for (const [a, ea] of byDevice) {
      for (const [b, eb] of byDevice) {
        if (a === b) continue;
        const q = (ea.sum / ea.n) / (eb.sum / eb.n);
        const cellKey = `${a}\u001f${b}`;
        const cell = cells.get(cellKey) ?? {a, b, quotients: [], keys: [], approx: false};
        cell.quotients.push(q);
        cell.keys.push(key);
        cell.approx ||= ea.approx || eb.approx;
        cells.set(cellKey, cell);
      }
    }
  }
  return [...cells.values()].map((c) => {
    const logs = c.quotients.map(Math.log);
    return {
      numerator: c.a,
      denominator: c.b,
      n: c.quotients.length,
      geomean: Math.exp(logs.reduce((s, x) => s + x, 0) / logs.length),
      min: Math.min(...c.quotients),
      max: Math.max(...c.quotients),
      approx: c.approx
    };
  });
}

/** Ratio a / b, or null when either is missing or b is zero. */
export function ratio(a, b) {
  if (typeof a !== "number" || typeof b !== "number" || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return null;
  return a / b;
}

/**
 * Conditions that differ among the compared items: [{field, label, values: [per item]}].
 * `items` are objects of condition values (null = not stated). A condition stated for some
 * items and not for others differs too ("not stated" is not the same as a stated value).
 */
export function differingConditions(items, fields) {
  const out = [];
  for (const [field, label] of fields) {
    const values = items.map((it) => normalise(it[field]));
    if (values.every((v) => v === null)) continue;
    if (new Set(values.map((v) => (v === null ? "\u0000null" : v))).size > 1) {
      out.push({field, label, values});
    }
  }
  return out;
}

function normalise(v) {
  if (v === null || v === undefined || v === "") return null;
  if (Array.isArray(v)) return v.length ? [...new Set(v.map(String))].sort().join(", ") : null;
  return String(v);
}
