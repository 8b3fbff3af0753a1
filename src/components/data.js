// Mart payloads (column-oriented JSON written by src/data/_sitedata.py) into rows. A payload of
// a mart that is not built yet has exists=false and no rows. String columns may come
// dictionary-encoded ({dict, codes}); columnsOf decodes them.

/** Column arrays of a payload, dictionary-encoded columns decoded ({} when the mart is missing). */
export function columnsOf(payload) {
  if (!payload || !payload.exists) return {};
  if (payload._decoded) return payload._decoded;
  const columns = {};
  for (const [name, values] of Object.entries(payload.data ?? {})) {
    columns[name] = Array.isArray(values) ? values : values.codes.map((c) => (c < 0 ? null : values.dict[c]));
  }
  Object.defineProperty(payload, "_decoded", {value: columns, enumerable: false});
  return columns;
}

/** Row objects of a payload ([] when the mart is missing). */
export function rowsOf(payload) {
  const columns = columnsOf(payload);
  const names = Object.keys(columns);
  const n = names.length ? columns[names[0]].length : 0;
  const rows = new Array(n);
  for (let i = 0; i < n; ++i) {
    const row = {};
    for (const name of names) row[name] = columns[name][i];
    rows[i] = row;
  }
  return rows;
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
