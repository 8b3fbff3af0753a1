// Pure comparison logic shared by the TPC-C page (quotient matrix), the fio page and the
// Compare page: which conditions make two results comparable, series labels from the
// conditions that vary, ratios. No DOM; unit-tested in tests/browser/logic.test.mjs.
import {withFields} from "./data.js";

/**
 * Conditions under which two TPC-C results may be divided (besides the device itself). The
 * same list as marts.int_device_metrics_keyed's comparison key (source kind, study, host, DB
 * server, config, kit, warehouses, connections, buffer pool, page size, device count, layout),
 * so the page groups results as the quotient mart pairs them.
 */
export const TPCC_CONDITIONS = [
  ["source_kind", "source"],
  ["setup", "study / host"],
  ["host_id", "host"],
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
  const vary = varyingFields(rows, conditions.map(([f]) => f).filter((f) => !exclude.includes(f)));
  return withFields(rows, (r) => {
    const text = conditionsText(r, vary);
    return {conditions: text, series: [r[device] ?? "unknown device", text].filter(Boolean).join(" · ")};
  });
}

/**
 * The values of `fields` of one row as a short label ("published · 500 wh · 12 GiB pool"); a
 * part equal to an earlier one is left out (a measured result's host is also its setup).
 */
export function conditionsText(row, fields) {
  const parts = [];
  for (const f of fields) {
    const part = conditionText(f, row[f]);
    if (!parts.includes(part)) parts.push(part);
  }
  return parts.join(" · ");
}

/** Short text for one condition value in a series label ("500 wh", "12 GiB pool"). */
export function conditionText(field, value) {
  if (value === null || value === undefined || value === "") {
    return `${field.replaceAll("_", " ")} not stated`;
  }
  switch (field) {
    case "setup": return String(value).replace(/^(study|host|run): /, "");
    case "source_kind": return String(value);
    case "warehouses": return `${value} wh`;
    case "connections": return `${value} conn`;
    case "buffer_pool_gib": return `${value} GiB pool`;
    case "page_size_kib": return `${value} KiB pages`;
    case "data_device_count": return `×${value}`;
    case "outstanding_ios": return `${value} outstanding`;
    case "read_pct": return `${value} % read`;
    case "measurement_area": return `${value} area`;
    default: return String(value);
  }
}

/**
 * Device x device quotients of `metric` over rows measured under the same conditions, computed
 * here. The /tpcc page does not use it: it reads the warehouse's quotients
 * (marts.fct_device_quotients, see quotientCells). The logic tests check this reference
 * computation against the ratios the studies printed.
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

/** Quotient scope values that mean "every one, summarised by the geometric mean". */
export const ALL_SETUPS = "all setups";
export const ALL_LEVELS = "all levels";
/** URL and option value of a level the source does not state (a study's one-off figure). */
export const LEVEL_NOT_STATED = "not stated";

/**
 * The comparable setups of the quotient mart's pairs among `results`: groups of results equal in
 * every condition but the load level (`levelField`), each with the devices and levels its pairs
 * of `metric` cover. Quotients are never recomputed here: `quotients` are rows of
 * marts.fct_device_quotients (fact_a_id, fact_b_id, metric, quotient), matched to the results
 * by id, so a pair exists only where the mart divided two results of the same conditions.
 * Sorted as the page offers them: most devices, then most levels, then label.
 */
export function quotientSetups(results, quotients, {metric, levelField = "connections", conditions = TPCC_CONDITIONS, id = "tpcc_result_id", device = "device_label"}) {
  const fields = conditions.map(([f]) => f).filter((f) => f !== levelField);
  const byId = new Map(results.map((r) => [r[id], r]));
  const setups = new Map();
  for (const q of quotients) {
    if (q.metric !== metric) continue;
    const a = byId.get(q.fact_a_id);
    const b = byId.get(q.fact_b_id);
    if (!a || !b) continue;
    const key = conditionKey(a, fields);
    let s = setups.get(key);
    if (!s) setups.set(key, (s = {key, label: setupLabel(a, fields), devices: new Set(), levels: new Map()}));
    const level = levelValue(a[levelField]);
    if (!s.levels.has(level)) s.levels.set(level, new Set());
    for (const r of [a, b]) {
      s.devices.add(r[device]);
      s.levels.get(level).add(r[device]);
    }
  }
  return [...setups.values()].map((s) => ({
    key: s.key, label: s.label, devices: s.devices.size,
    levels: [...s.levels].map(([level, devices]) => ({level, devices: devices.size}))
      .sort((x, y) => levelOrder(x.level) - levelOrder(y.level))
  })).sort((x, y) => y.devices - x.devices || y.levels.length - x.levels.length || x.label.localeCompare(y.label));
}

/** A setup's label: its stated conditions, as the series legends write them. */
function setupLabel(row, fields) {
  return conditionsText(row, fields.filter((f) => row[f] !== null && row[f] !== undefined && row[f] !== "")) || "conditions not stated";
}

function levelValue(v) {
  return v === null || v === undefined ? LEVEL_NOT_STATED : v;
}

function levelOrder(level) {
  return level === LEVEL_NOT_STATED ? Infinity : Number(level);
}

/**
 * The level a quotient matrix opens on: the one at which most devices were compared; among
 * equals the middle one (a load neither idle nor saturated), the lower of two middles.
 */
export function defaultLevel(levels) {
  if (!levels.length) return null;
  const most = Math.max(...levels.map((l) => l.devices));
  const tied = levels.filter((l) => l.devices === most);
  return tied[Math.floor((tied.length - 1) / 2)].level;
}

/**
 * Device x device cells from the quotient mart's pairs, within the chosen `setup` (a key from
 * quotientSetups, or ALL_SETUPS) at the chosen `level` (a level value, LEVEL_NOT_STATED or
 * ALL_LEVELS). A cell summarises its pairs by their geometric mean (with min, max, count, the
 * levels and setups they come from, and whether any figure is approximate); at one level of one
 * setup it is the mart's quotient itself (repeat runs: the geometric mean of their pairs).
 */
export function quotientCells(results, quotients, {metric, setup = ALL_SETUPS, level = ALL_LEVELS, levelField = "connections",
                                                   conditions = TPCC_CONDITIONS, id = "tpcc_result_id", device = "device_label"}) {
  const fields = conditions.map(([f]) => f).filter((f) => f !== levelField);
  const byId = new Map(results.map((r) => [r[id], r]));
  const cells = new Map();
  for (const q of quotients) {
    if (q.metric !== metric || typeof q.quotient !== "number" || !(q.quotient > 0)) continue;
    const a = byId.get(q.fact_a_id);
    const b = byId.get(q.fact_b_id);
    if (!a || !b) continue;
    if (setup !== ALL_SETUPS && conditionKey(a, fields) !== setup) continue;
    const lv = levelValue(a[levelField]);
    if (level !== ALL_LEVELS && String(lv) !== String(level)) continue;
    const cellKey = `${a[device]}\u001f${b[device]}`;
    let c = cells.get(cellKey);
    if (!c) cells.set(cellKey, (c = {a: a[device], b: b[device], aId: a.device_id, bId: b.device_id, quotients: [], levels: new Set(), setups: new Set(), approx: false, sources: new Set()}));
    c.quotients.push(q.quotient);
    c.levels.add(lv);
    c.setups.add(conditionKey(a, fields));
    c.approx ||= Boolean(a.is_approx || b.is_approx);
    for (const r of [a, b]) c.sources.add(r.provenance ?? r.setup ?? r.run_id ?? "unknown source");
  }
  return [...cells.values()].map((c) => ({
    numerator: c.a,
    denominator: c.b,
    numerator_id: c.aId,
    denominator_id: c.bId,
    n: c.quotients.length,
    // one pair: the mart's quotient as it is (exp(log(q)) would not give back every last digit)
    geomean: c.quotients.length === 1 ? c.quotients[0] : Math.exp(c.quotients.reduce((s, q) => s + Math.log(q), 0) / c.quotients.length),
    min: Math.min(...c.quotients),
    max: Math.max(...c.quotients),
    levels: [...c.levels].sort((x, y) => levelOrder(x) - levelOrder(y)),
    setup_count: c.setups.size,
    approx: c.approx,
    provenance: ((list) => list.slice(0, 4).join(" | ") + (list.length > 4 ? ` | … and ${list.length - 4} more` : ""))([...c.sources].sort())
  }));
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
