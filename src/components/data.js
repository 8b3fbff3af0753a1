// Mart payloads (column-oriented JSON written by src/data/_sitedata.py) into rows. A payload of
// a mart that is not built yet has exists=false and no rows. String columns may come
// dictionary-encoded ({dict, codes}), and a member of many rows in segments ({parts: [...]},
// each part a column of one segment in either form: src/data/_page_members.py); columnsOf
// decodes them.

/** Column arrays of a payload, dictionary-encoded and segmented columns decoded ({} when the mart is missing). */
export function columnsOf(payload) {
  if (!payload || !payload.exists) return {};
  if (payload._decoded) return payload._decoded;
  const columns = {};
  for (const [name, values] of Object.entries(payload.data ?? {})) setField(columns, name, decodeColumn(values));
  Object.defineProperty(payload, "_decoded", {value: columns, enumerable: false});
  return columns;
}

/** One column's values: a plain array as is, {dict, codes} looked up, {parts} each decoded and joined. */
function decodeColumn(values) {
  if (Array.isArray(values)) return values;
  if (Array.isArray(values.parts)) {
    const parts = values.parts.map(decodeColumn);
    return parts.length === 1 ? parts[0] : [].concat(...parts);
  }
  return values.codes.map((c) => (c < 0 ? null : values.dict[c]));
}

/** Row objects of a payload ([] when the mart is missing), all of one shape (see ROW SHAPES below). */
export function rowsOf(payload) {
  const columns = columnsOf(payload);
  const names = Object.keys(columns);
  const arrays = names.map((name) => columns[name]);
  const n = names.length ? arrays[0].length : 0;
  const make = columnsMaker(names);
  const rows = new Array(n);
  for (let i = 0; i < n; ++i) rows[i] = make(arrays, i);
  return rows;
}

/**
 * Copies of `rows` with the fields `derive(row)` returns added or replaced, as
 * `rows.map((r) => ({...r, ...derive(r)}))` gives them: the pages' way to add a label or a setup
 * to every row of a payload. Fast when the rows are of one shape (rowsOf's, withFields' own)
 * and `derive` returns the same keys for every row: each copy is then one compiled object
 * literal; any other row is spread.
 */
export function withFields(rows, derive) {
  if (!rows.length) return [];
  const first = derive(rows[0]);
  const shape = shapeOf(rows[0]);
  if (!shape || !rows.every((r) => shapeOf(r) === shape)) return rows.map((r, i) => ({...r, ...(i ? derive(r) : first)}));
  const added = Object.keys(first);
  const make = copyMaker(shape.names, added);
  const sameKeys = (x) => {
    if (Object.keys(x).length !== added.length) return false;
    for (const key of added) if (!Object.hasOwn(x, key)) return false;
    return true;
  };
  const out = new Array(rows.length);
  for (let i = 0; i < rows.length; ++i) {
    const x = i ? derive(rows[i]) : first;
    out[i] = i === 0 || sameKeys(x) ? make(rows[i], x) : {...rows[i], ...x};
  }
  return out;
}

// ROW SHAPES. Why rows are built by compiled object literals: a row built one property at a
// time, past a few dozen columns (fio results have 60), is a slow "dictionary" object to V8,
// and a spread that adds a key to a wide row redoes its layout every time: building, decorating
// and shaping the 20,000 fio results of a 10,000-run site took over a second before /fio's
// first chart (docs/performance.md); one literal per row takes a tenth of that. The site's
// Content-Security-Policy allows eval (Vega compiles its expressions the same way); where eval is
// refused, or a column is named __proto__, rows are plain objects built a property at a time.
//
// Every row a compiled literal builds is recorded with its shape (a WeakMap: rows stay plain
// objects, and are forgotten with them), so withFields knows from one lookup that a row holds
// exactly the shape's keys. (A prototype would say so too, but a literal that sets one is not
// compiled to V8's fast path: three times slower in Chromium.)
const shapeOfRow = new WeakMap();
const shapes = new Map();
const makers = new Map();

/** obj[name] = value, also for a name like "__proto__" (which an assignment takes as the prototype). */
function setField(obj, name, value) {
  if (name === "__proto__") Object.defineProperty(obj, name, {value, enumerable: true, writable: true, configurable: true});
  else obj[name] = value;
}

/** The shape a row was built with ({names}), or null for a row built any other way. */
function shapeOf(row) {
  return (row !== null && typeof row === "object" && shapeOfRow.get(row)) || null;
}

/** The shape of rows holding exactly `names`, in this order (one object per list of names). */
function shapeFor(names) {
  const key = names.join("\u0000");
  if (!shapes.has(key)) shapes.set(key, Object.freeze({names: Object.freeze([...names])}));
  return shapes.get(key);
}

/** `fields` ("name": expression, ...) compiled into (params) => row, rows recorded as of `names`; null without eval. */
function compiled(names, fields, params) {
  if (names.includes("__proto__")) return null;   // a quoted "__proto__" key sets the prototype
  let make;
  try {
    make = new Function(`return (${params}) => ({${fields}});`)();
  } catch {
    return null;   // eval refused (a stricter Content-Security-Policy than the site's own)
  }
  const shape = shapeFor(names);
  return (p, q) => {
    const row = make(p, q);
    shapeOfRow.set(row, shape);
    return row;
  };
}

const cachedMaker = (key, build) => {
  if (!makers.has(key)) makers.set(key, build());
  return makers.get(key);
};

/** (arrays, i) -> the row {names[j]: arrays[j][i]}. */
function columnsMaker(names) {
  return cachedMaker(JSON.stringify(["columns", names]), () =>
    compiled(names, names.map((name, j) => `${JSON.stringify(name)}: a[${j}][i]`).join(", "), "a, i")
    ?? ((arrays, i) => {
      const row = {};
      for (let j = 0; j < names.length; ++j) setField(row, names[j], arrays[j][i]);
      return row;
    }));
}

/** (row, extra) -> {...row, ...extra} for rows of `names`, extra of `added`: keys in the spread's order. */
function copyMaker(names, added) {
  const all = [...names, ...added.filter((n) => !names.includes(n))];
  const from = new Set(added);
  return cachedMaker(JSON.stringify(["copy", names, added]), () =>
    compiled(all, all.map((n) => `${JSON.stringify(n)}: ${from.has(n) ? "x" : "r"}[${JSON.stringify(n)}]`).join(", "), "r, x")
    ?? ((row, extra) => ({...row, ...extra})));
}

/** True when the payload's mart exists and has the column. */
export function hasColumn(payload, column) {
  return Boolean(payload?.exists && payload.data && column in payload.data);
}

/** Distinct non-null values of a field, sorted (numbers numerically). */
export function distinct(rows, field) {
  const set = new Set();
  for (const row of rows) {
    const v = row[field];
    if (v !== null && v !== undefined && v !== "") set.add(v);
  }
  return [...set].sort((a, b) => (typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b))));
}

/** The first of `fields` that some row has a value for (columns differ between mart versions). */
export function firstField(rows, fields) {
  return fields.find((f) => rows.some((r) => r[f] !== null && r[f] !== undefined)) ?? null;
}

/** Rows whose `field` is one of `values` (all rows when `values` is empty or null). */
export function whereIn(rows, field, values) {
  if (!values || values.length === 0) return rows;
  const set = new Set(values.map(String));
  return rows.filter((r) => set.has(String(r[field])));
}

/** value of `field` -> number of rows, in one pass, in order of first appearance (for "device (n)" labels). */
export function countBy(rows, field) {
  const counts = new Map();
  for (const r of rows) counts.set(r[field], (counts.get(r[field]) ?? 0) + 1);
  return counts;
}

/** Index rows by a key field. */
export function indexBy(rows, field) {
  return new Map(rows.map((r) => [r[field], r]));
}

const INTERFACE_NAMES = {nvme: "NVMe", sata: "SATA", sas: "SAS", pcie: "PCIe", scsi: "SCSI", ide: "IDE", usb: "USB"};
const STATES_CAPACITY = /\d(?:[.,]\d+)?\s*[GT]B\b/i;

/** A device's human name: vendor (without its parenthetical note) and model, vendor left out when unknown or repeated. */
export function deviceName(d) {
  const vendor = String(d.vendor ?? d.device_vendor ?? "").replace(/\s*\([^)]*\)\s*/g, " ").trim();
  const model = String(d.model ?? d.device_model ?? "").trim();
  const knownVendor = vendor && !/^(not stated|unknown)$/i.test(vendor) && !model.toLowerCase().startsWith(vendor.toLowerCase());
  return [knownVendor ? vendor : null, model || null].filter(Boolean).join(" ") || String(d.device_id ?? "unknown device");
}

/**
 * device_id -> readable label ("Samsung PM1725 (NVMe, 1500 GB)") from dim_devices rows: the
 * device's name, then its interface (or media) and capacity unless the name already says them;
 * ids not in the catalog are shown as they are. Every page labels devices with this one function.
 */
export function deviceLabeler(deviceRows) {
  const byId = new Map();
  for (const d of deviceRows) {
    if (!d.device_id) continue;
    const name = deviceName(d);
    const iface = d.interface ?? d.device_interface ?? d.media ?? d.device_media;
    const capacity = d.capacity_gb ?? d.device_capacity_gb;
    const details = [
      iface && !name.toLowerCase().includes(String(iface).toLowerCase()) ? INTERFACE_NAMES[iface] ?? iface : null,
      capacity && !STATES_CAPACITY.test(name) ? `${capacity} GB` : null
    ].filter(Boolean).join(", ");
    byId.set(d.device_id, details ? `${name} (${details})` : name);
  }
  // Two catalog entries may read the same: keep labels unique by appending the id.
  const counts = new Map();
  for (const label of byId.values()) counts.set(label, (counts.get(label) ?? 0) + 1);
  for (const [id, label] of byId) if (counts.get(label) > 1) byId.set(id, `${label} [${id}]`);
  return (id) => (id === null || id === undefined ? "unknown device" : byId.get(id) ?? String(id));
}
