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
        const cell = cells.get(cellKey) ?? {a, b, quotients: [], keys: [], approx: false, sources: new Set()};
        cell.quotients.push(q);
        cell.keys.push(key);
        cell.approx ||= ea.approx || eb.approx;
        for (const r of [...ea.rows, ...eb.rows]) cell.sources.add(r.provenance ?? r.setup ?? r.run_id ?? "unknown source");
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
      approx: c.approx,
      provenance: ((list) => list.slice(0, 4).join(" | ") + (list.length > 4 ? ` | … and ${list.length - 4} more` : ""))([...c.sources].sort())
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
  if (Array.isArray(v)) {
    // Numbers in numeric order ("5, 12, 100", not "100, 12, 5"), text with its digits read as numbers.
    const unique = new Map(v.filter((x) => x !== null && x !== undefined && x !== "").map((x) => [String(x), x]));
    return unique.size ? [...unique.values()].sort(compareConditionValues).map(String).join(", ") : null;
  }
  return String(v);
}

/** Order of two condition values: numbers numerically, text with embedded numbers read as numbers. */
export function compareConditionValues(a, b) {
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b), "en", {numeric: true});
}

/**
 * Conditions that are facts of the compared devices themselves (model, media, interface,
 * capacity ...): what a comparison is about, so never listed as "conditions that differ".
 */
export const INHERENT_DEVICE_FACTS = ["device", "data_device", "media", "interface", "capacity", "form_factor", "rpm"];

/**
 * Split the comparison keys of a runs comparison: a key field with at most one value in each
 * compared item (a sweep step's outstanding IOs, a run's block size or connections) describes
 * the run, not a level within it, so it becomes a condition of the run (listed when it differs)
 * and metrics are matched without it; a field with several values inside one item (a run that
 * swept outstanding IOs itself) stays a key, so its levels are matched level by level.
 * `rows` carry `_item`; returns {keyFields, runLevel} (both lists of [field, label]).
 */
export function splitRunLevelFields(rows, keyFields, itemCount) {
  const keys = [];
  const runLevel = [];
  for (const pair of keyFields) {
    const [field] = pair;
    const perItem = Array.from({length: itemCount}, () => new Set());
    for (const r of rows) {
      const v = r[field];
      if (v !== null && v !== undefined && v !== "" && perItem[r._item]) perItem[r._item].add(String(v));
    }
    (perItem.every((set) => set.size <= 1) ? runLevel : keys).push(pair);
  }
  return {keyFields: keys, runLevel};
}

/**
 * Side-by-side metric rows for the Compare page.
 * `sources`: [{name, rows, keyFields: [[field, label]...], metrics: [[field, label, higherIsBetter]...]}]
 *   rows carry `_item` (the index of the compared item they belong to).
 * Returns [{section, metric, label, higherIsBetter, keys: {field: value}, conditions (text), values: [[v...] per item], value: [v|null per item],
 *           ratio: [r|null per item], shared: count of items with a value}], the first item being the baseline.
 * Several values of one item under one key (repeat runs) are averaged; `values` keeps them all.
 * Within a metric, rows come in the order of their key values (numbers numerically).
 */
export function sideBySide(sources, itemCount) {
  const out = [];
  for (const {name, rows, keyFields, metrics} of sources) {
    for (const [metric, label, higherIsBetter] of metrics) {
      const groups = new Map();
      for (const r of rows) {
        const v = r[metric];
        if (typeof v !== "number" || !Number.isFinite(v)) continue;
        const key = conditionKey(r, keyFields.map(([f]) => f));
        let g = groups.get(key);
        if (!g) {
          g = {row: r, values: Array.from({length: itemCount}, () => []), approx: false};
          groups.set(key, g);
        }
        g.values[r._item].push(v);
        g.approx ||= Boolean(r.is_approx);
      }
      // Rows in the order of their conditions, numbers numerically (conn 50, 100, 200; not 100, 200, 50).
      const ordered = [...groups.values()].sort((x, y) => {
        for (const [f] of keyFields) {
          const a = x.row[f];
          const b = y.row[f];
          const aEmpty = a === null || a === undefined;
          const bEmpty = b === null || b === undefined;
          if (aEmpty || bEmpty) {
            if (aEmpty !== bEmpty) return aEmpty ? 1 : -1;
            continue;
          }
          const c = compareConditionValues(a, b);
          if (c) return c;
        }
        return 0;
      });
      for (const g of ordered) {
        const value = g.values.map((vs) => (vs.length ? vs.reduce((s, v) => s + v, 0) / vs.length : null));
        const shared = value.filter((v) => v !== null).length;
        if (shared < 2) continue;
        out.push({
          section: name, metric, label, higherIsBetter,
          keys: Object.fromEntries(keyFields.map(([f]) => [f, g.row[f] ?? null])),
          conditions: keyFields.filter(([f]) => g.row[f] !== null && g.row[f] !== undefined)
            .map(([f, l]) => `${l} ${g.row[f]}`).join(", "),
          values: g.values, value, shared, approx: g.approx,
          ratio: value.map((v) => (value[0] === null ? null : ratio(v, value[0])))
        });
      }
    }
  }
  return out;
}

/**
 * Parameter-by-parameter difference of two DB configurations (rows of marts.dim_db_configs:
 * config_id, parameter, value). Same semantics as marts.dim_db_config_diffs: "changed" when both
 * state the parameter with different values, "only_in_a" / "only_in_b" when one is silent,
 * "same" otherwise. Values are compared verbatim (as printed).
 */
export function configDiff(rows, a, b) {
  const of = (id) => new Map(rows.filter((r) => r.config_id === id).map((r) => [r.parameter, r]));
  const pa = of(a);
  const pb = of(b);
  const names = [...new Set([...pa.keys(), ...pb.keys()])].sort((x, y) => x.localeCompare(y));
  return names.map((parameter) => {
    const ra = pa.get(parameter) ?? null;
    const rb = pb.get(parameter) ?? null;
    const kind = !ra ? "only_in_b" : !rb ? "only_in_a" : ra.value === rb.value ? "same" : "changed";
    return {parameter, value_a: ra?.value ?? null, value_b: rb?.value ?? null, kind,
            inherited_a: Boolean(ra?.is_inherited), inherited_b: Boolean(rb?.is_inherited),
            section: ra?.config_section ?? rb?.config_section ?? null};
  });
}

/**
 * The largest group of rows measured under identical conditions (every field of `fields`
 * equal): most distinct devices first, then most distinct `spread` values (e.g. connection
 * counts), then most rows. The home page's headline and the default view of a large
 * warehouse's TPC-C page, so their first chart compares devices like with like. [] when none.
 */
export function largestComparableGroup(rows, {fields, spread, device = "device_id"}) {
  const groups = new Map();
  for (const r of rows) {
    const k = conditionKey(r, fields);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = {rows: [], devices: new Set(), spread: new Set()}));
    g.rows.push(r);
    if (r[device] !== null && r[device] !== undefined) g.devices.add(r[device]);
    if (r[spread] !== null && r[spread] !== undefined) g.spread.add(r[spread]);
  }
  const score = (g) => g.devices.size * 1000 + g.spread.size * 10 + g.rows.length / 1000;
  let best = null;
  for (const g of groups.values()) if (!best || score(g) > score(best)) best = g;
  return best ? best.rows : [];
}
