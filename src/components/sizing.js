// Storage sizing: how many drives of one model a workload needs, which constraint binds, and
// how much headroom every other constraint has. Pure functions, no DOM: the sizing page and the
// tests (tests/js/sizing.test.mjs with the hand-worked vectors of tests/js/sizing-vectors.json,
// tests/js/sizing-property.test.mjs) use this one module. docs/sizing.md explains each formula.
//
//   back-end IOPS        = front IOPS x (read share + RAID write penalty x write share)
//   drives for IOPS      = ceil(back-end IOPS / per-drive IOPS at the latency target)
//   drives for MB/s      = ceil(front MB/s x (read share + penalty x write share) / per-drive MB/s)
//   capacity needed      = capacity now x (1 + growth)^years; drives from the RAID's usable share
//   required DWPD        = host TB/day x RAID write factor x write amplification / (drives x drive TB)
//   drives for endurance = ceil(host TB/day x write factor x WA / (rated DWPD over the horizon x drive TB))
//   total                = max(IOPS, MB/s, capacity, endurance, RAID minimum), RAID-rounded, + spares
// A figure that is not known (DWPD, MB/s, price) is never replaced by a number: its constraint
// is "unknown" and the row says so.
import {count, times} from "./sizing-format.js";

export const RAID_LEVELS = {
  // penalty: back-end IOs per front-end random write; writeFactor: bytes written per host byte
  // (endurance); parity: drives' worth of capacity per group; min: smallest array; even: pairs.
  "0": {label: "RAID 0", penalty: 1, writeFactor: 1, min: 1, even: false, parity: 0, mirror: false},
  "1": {label: "RAID 1", penalty: 2, writeFactor: 2, min: 2, even: true, parity: 0, mirror: true},
  "10": {label: "RAID 10", penalty: 2, writeFactor: 2, min: 4, even: true, parity: 0, mirror: true},
  "5": {label: "RAID 5", penalty: 4, writeFactor: 2, min: 3, even: false, parity: 1, mirror: false},
  "6": {label: "RAID 6", penalty: 6, writeFactor: 3, min: 4, even: false, parity: 2, mirror: false}
};

export const CONSTRAINTS = ["iops", "throughput", "capacity", "endurance", "raid_minimum"];
export const CONSTRAINT_LABELS = {
  iops: "IOPS", throughput: "throughput", capacity: "capacity", endurance: "endurance", raid_minimum: "RAID minimum"
};

/**
 * Every editable scenario figure with its on-screen label and bounds. The bounds keep every
 * answer finite and quick (the largest array is counted, never enumerated) and the messages
 * use the words on screen: "Front-end IOPS must be at least 1".
 */
export const SCENARIO_FIELDS = {
  front_iops: {label: "Front-end IOPS", min: 1, max: 1e8},
  tpmc: {label: "Target New-Order rate", min: 1, max: 1e9},
  read_pct: {label: "Reads", min: 0, max: 100},
  block_kib: {label: "Block size", min: 0.5, max: 16384},
  latency_ms: {label: "Latency target", min: 0.001, max: 100000},
  capacity_tb: {label: "Capacity needed now", min: 0.001, max: 1e6},
  growth_pct_per_year: {label: "Growth", min: 0, max: 200},
  horizon_years: {label: "Horizon", min: 0, max: 30},
  daily_write_tb: {label: "Host writes", min: 0, max: 1e6, optional: true},
  write_amplification: {label: "Write amplification", min: 1, max: 20},
  hot_spares: {label: "Hot spares", min: 0, max: 1000, integer: true},
  raid_group_size: {label: "RAID group size", min: 2, max: 64, integer: true, optional: true}
};

/** Every editable per-drive figure, with its on-screen label and bounds. */
export const DEVICE_FIELDS = {
  capacity_tb: {label: "Capacity per drive", unit: "TB", min: 0.001, max: 1000},
  iops_per_drive: {label: "IOPS per drive", unit: "IO/s", min: 1, max: 1e8},
  mbps_per_drive: {label: "MB/s per drive", unit: "MB/s", min: 0.1, max: 1e6, optional: true},
  price_usd: {label: "Price per drive", unit: "$", min: 0, max: 1e7, optional: true},
  dwpd: {label: "DWPD", unit: "drive writes / day", min: 0.01, max: 1000, optional: true},
  endurance_years: {label: "Warranty", unit: "years", min: 0.5, max: 30, optional: true}
};

function blank(v) {
  return v === undefined || v === null || v === "";
}

function limitText(x) {
  return x >= 1e6 ? x.toLocaleString("en-US") : String(x);
}

/** The message for one value against one field spec, or null when it is fine. */
export function checkValue(value, spec) {
  if (blank(value)) return spec.optional ? null : `${spec.label} is required`;
  if (typeof value !== "number" || !Number.isFinite(value)) return `${spec.label} must be a number`;
  if (value < spec.min) return `${spec.label} must be at least ${limitText(spec.min)}`;
  if (value > spec.max) return `${spec.label} must be at most ${limitText(spec.max)}`;
  if (spec.integer && !Number.isInteger(value)) return `${spec.label} must be a whole number`;
  return null;
}

/** Validate a scenario; returns {field: message} (empty when valid). Only fields present are checked. */
export function validateScenario(s, fields = ["front_iops", "read_pct", "block_kib", "capacity_tb", "growth_pct_per_year",
  "horizon_years", "daily_write_tb", "write_amplification", "hot_spares", "raid_group_size"]) {
  const errors = {};
  for (const name of fields) {
    const message = checkValue(s[name], SCENARIO_FIELDS[name]);
    if (message) errors[name] = message;
  }
  const level = RAID_LEVELS[String(s.raid)];
  if (!level) errors.raid = `Protection must be one of ${Object.values(RAID_LEVELS).map((l) => l.label).join(", ")}`;
  else if (!errors.raid_group_size && !blank(s.raid_group_size) && s.raid_group_size < level.min) {
    errors.raid_group_size = `RAID group size must be at least ${level.min} for ${level.label}`;
  }
  return errors;
}

/** Validate one drive's figures; returns {field: message}. */
export function validateFigures(d) {
  const errors = {};
  for (const [name, spec] of Object.entries(DEVICE_FIELDS)) {
    const message = checkValue(d[name], spec);
    if (message) errors[name] = message;
  }
  return errors;
}

/** Drives of one model a RAID set needs to give `usableTb` of usable capacity. */
export function drivesForCapacity(usableTb, driveTb, raid, groupSize) {
  const level = RAID_LEVELS[String(raid)];
  const dataDrives = Math.max(Math.ceil(usableTb / driveTb - 1e-9), 1);
  if (level.mirror) return 2 * dataDrives;
  if (level.parity === 0) return dataDrives;
  if (!groupSize) return dataDrives + level.parity; // one group: (n - parity) / n usable
  const dataPerGroup = groupSize - level.parity;
  return Math.ceil(dataDrives / dataPerGroup) * groupSize;
}

/** Usable TB of `drives` drives in this RAID level (whole groups only when a group size is set). */
export function usableCapacityTb(drives, driveTb, raid, groupSize) {
  const level = RAID_LEVELS[String(raid)];
  if (level.mirror) return Math.floor(drives / 2) * driveTb;
  if (level.parity === 0) return drives * driveTb;
  if (!groupSize) return Math.max(drives - level.parity, 0) * driveTb;
  return Math.floor(drives / groupSize) * (groupSize - level.parity) * driveTb;
}

/** Round a drive count up to what the RAID level can build (its minimum, pairs, whole groups). */
export function roundForRaid(n, raid, groupSize) {
  const level = RAID_LEVELS[String(raid)];
  let drives = Math.max(n, level.min);
  if (level.even && drives % 2) drives += 1;
  if (groupSize && !level.mirror && level.parity > 0) drives = Math.ceil(drives / groupSize) * groupSize;
  return drives;
}

/** Capacity needed at the end of the horizon (TB). */
export function capacityNeededTb(s) {
  return s.capacity_tb * Math.pow(1 + s.growth_pct_per_year / 100, s.horizon_years);
}

/** Host writes per day (TB): given, or derived from the write share of the workload. */
export function dailyWriteTb(s) {
  if (typeof s.daily_write_tb === "number" && Number.isFinite(s.daily_write_tb)) return s.daily_write_tb;
  const writeShare = 1 - s.read_pct / 100;
  return (s.front_iops * writeShare * s.block_kib * 1024 * 86400) / 1e12;
}

/**
 * The drive's rated DWPD spread over the planning horizon: a drive rated for `dwpd` over a
 * `warranty`-year warranty writes dwpd x capacity x 365 x warranty in total; spread over a
 * longer horizon that is dwpd x warranty / horizon per day. A shorter horizon earns nothing extra.
 */
export function dwpdOverHorizon(dwpd, warrantyYears, horizonYears) {
  if (!(dwpd > 0)) return null;
  if (!(warrantyYears > 0) || !(horizonYears > warrantyYears)) return dwpd;
  return (dwpd * warrantyYears) / horizonYears;
}

const ceil = (x) => Math.ceil(x - 1e-9);

/**
 * Size one device for one scenario. `device`: {device_id, capacity_tb, iops_per_drive,
 * mbps_per_drive, price_usd, dwpd, endurance_years} (null = unknown) and `latency_status`
 * (met | unverified) from the evidence. Returns {ok:false, errors} for bad input, else drive
 * counts per constraint, statuses, headroom, costs. Never NaN or Infinity.
 */
export function sizeDevice(scenario, device) {
  const errors = {...validateScenario(scenario), ...prefix(validateFigures(device), "device.")};
  if (Object.keys(errors).length) return {ok: false, errors};
  const raid = String(scenario.raid);
  const level = RAID_LEVELS[raid];
  const group = scenario.raid_group_size || undefined;
  const read = scenario.read_pct / 100;
  const write = 1 - read;
  const ioCost = read + level.penalty * write; // back-end IOs per front-end IO
  const backendIops = scenario.front_iops * ioCost;
  const frontMbps = (scenario.front_iops * scenario.block_kib * 1024) / 1e6;
  const backendMbps = frontMbps * ioCost;
  const capacityTb = capacityNeededTb(scenario);
  const writesTbPerDay = dailyWriteTb(scenario);
  const hostWritesToFlash = writesTbPerDay * level.writeFactor * scenario.write_amplification; // TB/day
  const mbps = blank(device.mbps_per_drive) ? null : device.mbps_per_drive;
  const rated = blank(device.dwpd) ? null : device.dwpd;
  const warranty = blank(device.endurance_years) ? null : device.endurance_years;
  const effectiveDwpd = dwpdOverHorizon(rated, warranty, scenario.horizon_years);

  // Raw need of each constraint (drives, before RAID rounding); null = cannot be checked.
  const raw = {
    iops: ceil(backendIops / device.iops_per_drive),
    throughput: mbps === null ? null : ceil(backendMbps / mbps),
    capacity: drivesForCapacity(capacityTb, device.capacity_tb, raid, group),
    endurance: effectiveDwpd === null ? null : ceil(hostWritesToFlash / (effectiveDwpd * device.capacity_tb)),
    raid_minimum: level.min
  };
  const drives = Object.fromEntries(CONSTRAINTS.map((c) => [c, raw[c] === null ? null : roundForRaid(raw[c], raid, group)]));
  // The largest need binds; ties go to the earlier constraint (IOPS first).
  const binding = CONSTRAINTS.reduce((best, c) => ((raw[c] ?? -1) > (raw[best] ?? -1) ? c : best), CONSTRAINTS[0]);
  const arrayDrives = Math.max(...CONSTRAINTS.map((c) => drives[c] ?? 0));
  const spares = scenario.hot_spares;
  const total = arrayDrives + spares;

  const usableTb = usableCapacityTb(arrayDrives, device.capacity_tb, raid, group);
  const deliverableIops = (arrayDrives * device.iops_per_drive) / ioCost;
  const deliverableMbps = mbps === null ? null : (arrayDrives * mbps) / ioCost;
  const requiredDwpd = hostWritesToFlash / (arrayDrives * device.capacity_tb);
  const price = blank(device.price_usd) ? null : device.price_usd;
  const cost = price === null ? null : total * price;

  const status = (known, met) => (known ? (met ? "met" : "not met") : "unknown");
  const constraints = {
    iops: {need: scenario.front_iops, have: deliverableIops, drives: raw.iops,
           status: status(true, deliverableIops >= scenario.front_iops * (1 - 1e-9)), headroom: deliverableIops / scenario.front_iops},
    throughput: {need: frontMbps, have: deliverableMbps, drives: raw.throughput,
                 status: status(mbps !== null, deliverableMbps !== null && deliverableMbps >= frontMbps * (1 - 1e-9)),
                 headroom: deliverableMbps === null ? null : deliverableMbps / frontMbps},
    capacity: {need: capacityTb, have: usableTb, drives: raw.capacity,
               status: status(true, usableTb >= capacityTb * (1 - 1e-9)), headroom: usableTb / capacityTb},
    endurance: {need: requiredDwpd, have: effectiveDwpd, rated_dwpd: rated, drives: raw.endurance,
                status: status(effectiveDwpd !== null, effectiveDwpd !== null && effectiveDwpd >= requiredDwpd * (1 - 1e-9)),
                headroom: effectiveDwpd === null || requiredDwpd <= 0 ? null : effectiveDwpd / requiredDwpd},
    raid_minimum: {need: level.min, have: arrayDrives, drives: level.min, status: status(true, arrayDrives >= level.min),
                   headroom: arrayDrives / level.min}
  };
  const latencyStatus = device.latency_status === "met" ? "met" : "unverified";
  const unknowns = [
    constraints.throughput.status === "unknown" ? "throughput (no MB/s per drive)" : null,
    constraints.endurance.status === "unknown" ? "endurance (DWPD unknown)" : null,
    price === null ? "price" : null
  ].filter(Boolean);
  const result = {
    ok: true,
    device_id: device.device_id ?? null,
    backend_iops: backendIops,
    front_mbps: frontMbps,
    backend_mbps: backendMbps,
    capacity_needed_tb: capacityTb,
    daily_write_tb: writesTbPerDay,
    drives_raw: raw,
    drives,
    binding,
    array_drives: arrayDrives,
    spares,
    total_drives: total,
    usable_tb: usableTb,
    deliverable_iops: deliverableIops,
    deliverable_mbps: deliverableMbps,
    required_dwpd: requiredDwpd,
    rated_dwpd: rated,
    effective_dwpd: effectiveDwpd,
    warranty_note: warranty !== null && scenario.horizon_years > warranty
      ? `the ${scenario.horizon_years}-year horizon outlasts the ${warranty}-year warranty: the rated writes are spread over the horizon`
      : null,
    constraints,
    latency_status: latencyStatus,
    unknowns,
    // 0: latency met and nothing unknown; 1: latency met, some figure unknown; 2: latency unverified
    rank_class: latencyStatus !== "met" ? 2 : unknowns.length ? 1 : 0,
    cost_usd: cost,
    usd_per_usable_tb: cost !== null && usableTb > 0 ? cost / usableTb : null,
    usd_per_kiops: cost !== null && deliverableIops > 0 ? cost / (deliverableIops / 1000) : null
  };
  result.summary = summarize(result);
  return sanitize(result);
}

/**
 * Rows in the order a buyer should read them: latency met with every figure known, then latency
 * met with something unknown, then latency unverified; within each, cheapest first (unknown
 * price last), then fewest drives. `resultOf` picks the sizeDevice result out of an item.
 */
export function rankResults(items, resultOf = (x) => x) {
  return [...items].sort((x, y) => {
    const a = resultOf(x);
    const b = resultOf(y);
    return a.rank_class - b.rank_class ||
      (a.cost_usd === null) - (b.cost_usd === null) ||
      (a.cost_usd ?? 0) - (b.cost_usd ?? 0) ||
      a.total_drives - b.total_drives ||
      String(x.label ?? a.device_id).localeCompare(String(y.label ?? b.device_id));
  });
}

/** The scenario with `factor` times the workload: IOPS and (typed) host writes scale, capacity does not. */
export function scaleWorkload(scenario, factor) {
  const scaled = {...scenario, front_iops: scenario.front_iops * factor};
  if (typeof scenario.daily_write_tb === "number") scaled.daily_write_tb = scenario.daily_write_tb * factor;
  return scaled;
}

function summarize(r) {
  const label = CONSTRAINT_LABELS[r.binding];
  const others = ["iops", "throughput", "capacity", "endurance"]
    .filter((c) => c !== r.binding && r.constraints[c].status === "met" && Number.isFinite(r.constraints[c].headroom))
    .map((c) => `${times(r.constraints[c].headroom)} the ${CONSTRAINT_LABELS[c]} you need`);
  const unknown = ["throughput", "endurance"].filter((c) => r.constraints[c].status === "unknown").map((c) => CONSTRAINT_LABELS[c]);
  const base = `${label}-bound: ${count(r.array_drives)} drive${r.array_drives === 1 ? "" : "s"}` +
    (r.spares ? ` (+${count(r.spares)} spare${r.spares === 1 ? "" : "s"})` : "");
  return (others.length ? `${base} give ${others.join(", ")}` : base) + (unknown.length ? `; ${unknown.join(" and ")} unknown` : "");
}

function prefix(obj, p) {
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [p + k, v]));
}

// Belt and braces: a non-finite number never reaches the page (it would print NaN / Infinity).
function sanitize(value) {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map(sanitize);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sanitize(v)]));
  }
  return value;
}
