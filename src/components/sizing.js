// Storage sizing: how many drives of one model a workload needs, and which constraint binds.
// Pure functions, no DOM: the sizing page and the tests (tests/js/sizing.test.mjs, with the
// hand-checked vectors in tests/js/sizing-vectors.json) use this one module.
//
// Formulas (docs/sizing.md explains each):
//   back-end IOPS      = front IOPS x (read share + RAID write penalty x write share)
//   drives for IOPS    = ceil(back-end IOPS / per-drive IOPS at the latency target)
//   drives for MB/s    = ceil(front MB/s x (read share + write factor x write share) / per-drive MB/s)
//   capacity needed    = capacity now x (1 + growth)^years; drives from RAID usable efficiency
//   drives for endurance = ceil(daily host writes x RAID write factor x write amplification
//                               / (DWPD x drive capacity))
//   total              = max(IOPS, MB/s, capacity, endurance, RAID minimum), RAID-rounded, + spares

export const RAID_LEVELS = {
  // penalty: back-end IOs per front-end write (reads + writes a small write costs);
  // writeFactor: bytes written to flash per byte the host writes (endurance, bandwidth);
  // parity: drives' worth of capacity lost per group; min: smallest array; even: mirrored pairs.
  "0": {label: "RAID 0", penalty: 1, writeFactor: 1, min: 1, even: false, parity: 0, mirror: false},
  "1": {label: "RAID 1", penalty: 2, writeFactor: 2, min: 2, even: true, parity: 0, mirror: true},
  "10": {label: "RAID 10", penalty: 2, writeFactor: 2, min: 4, even: true, parity: 0, mirror: true},
  "5": {label: "RAID 5", penalty: 4, writeFactor: 2, min: 3, even: false, parity: 1, mirror: false},
  "6": {label: "RAID 6", penalty: 6, writeFactor: 3, min: 4, even: false, parity: 2, mirror: false}
};

const CONSTRAINTS = ["iops", "throughput", "capacity", "endurance", "raid_minimum"];
export const CONSTRAINT_LABELS = {
  iops: "IOPS", throughput: "throughput", capacity: "capacity", endurance: "endurance",
  raid_minimum: "RAID minimum"
};

/** Validate a scenario; returns {field: message} (empty when valid). */
export function validateScenario(s) {
  const errors = {};
  const need = (field, {min = 0, max = Infinity, allowZero = false, optional = false} = {}) => {
    const v = s[field];
    if (v === undefined || v === null || v === "") {
      if (!optional) errors[field] = "required";
      return;
    }
    if (typeof v !== "number" || !Number.isFinite(v)) errors[field] = "must be a number";
    else if (v < min || (!allowZero && v === 0 && min === 0)) errors[field] = allowZero ? `must be at least ${min}` : "must be greater than 0";
    else if (v > max) errors[field] = `must be at most ${max.toLocaleString("en-US")}`;
  };
  need("front_iops", {max: 1e9});
  need("read_pct", {allowZero: true, max: 100});
  need("block_kib", {max: 16384});
  need("capacity_tb", {max: 1e6});
  need("growth_pct_per_year", {allowZero: true, max: 1000});
  need("horizon_years", {allowZero: true, max: 30});
  need("daily_write_tb", {allowZero: true, max: 1e5, optional: true});
  need("write_amplification", {min: 1, allowZero: false, max: 20});
  need("hot_spares", {allowZero: true, max: 100});
  if (s.hot_spares !== undefined && !errors.hot_spares && !Number.isInteger(s.hot_spares)) {
    errors.hot_spares = "must be a whole number";
  }
  if (!(String(s.raid) in RAID_LEVELS)) errors.raid = `must be one of ${Object.keys(RAID_LEVELS).join(", ")}`;
  if (s.raid_group_size !== undefined && s.raid_group_size !== null && s.raid_group_size !== "") {
    const g = s.raid_group_size;
    const level = RAID_LEVELS[String(s.raid)];
    if (!Number.isInteger(g)) errors.raid_group_size = "must be a whole number";
    else if (level && g < level.min) errors.raid_group_size = `must be at least ${level.min} for ${level.label}`;
    else if (g > 64) errors.raid_group_size = "must be at most 64";
  }
  return errors;
}

/** Validate a device's figures; returns {field: message}. */
export function validateDevice(d) {
  const errors = {};
  const positive = (field, optional = false) => {
    const v = d[field];
    if (v === undefined || v === null || v === "") {
      if (!optional) errors[field] = "required";
      return;
    }
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) errors[field] = "must be a number greater than 0";
  };
  positive("capacity_tb");
  positive("iops_per_drive");
  positive("mbps_per_drive", true);
  positive("price_usd", true);
  positive("dwpd", true);
  positive("endurance_years", true);
  return errors;
}

/** Drives of one model a RAID set needs to give `usableTb` of usable capacity. */
export function drivesForCapacity(usableTb, driveTb, raid, groupSize) {
  const level = RAID_LEVELS[String(raid)];
  const dataDrives = Math.ceil(usableTb / driveTb - 1e-9);
  if (level.mirror) return roundForRaid(2 * dataDrives, raid);
  if (level.parity === 0) return Math.max(dataDrives, 1);
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

/** Round a drive count up to what the RAID level can build (pairs for mirrors, whole groups). */
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
 * Size one device for one scenario. Returns {ok:false, errors} for bad input, else the
 * drive counts per constraint, the binding one, costs and headroom. Never NaN or Infinity.
 */
export function sizeDevice(scenario, device) {
  const errors = {...validateScenario(scenario), ...prefix(validateDevice(device), "device.")};
  if (Object.keys(errors).length) return {ok: false, errors};
  const raid = String(scenario.raid);
  const level = RAID_LEVELS[raid];
  const group = scenario.raid_group_size || undefined;
  const read = scenario.read_pct / 100;
  const write = 1 - read;
  const backendIops = scenario.front_iops * (read + level.penalty * write);
  const frontMbps = (scenario.front_iops * scenario.block_kib * 1024) / 1e6;
  const backendMbps = frontMbps * (read + level.writeFactor * write);
  const capacityTb = capacityNeededTb(scenario);
  const writesTbPerDay = dailyWriteTb(scenario);

  const raw = {
    iops: Math.ceil(backendIops / device.iops_per_drive - 1e-9),
    throughput: device.mbps_per_drive ? Math.ceil(backendMbps / device.mbps_per_drive - 1e-9) : 0,
    capacity: drivesForCapacity(capacityTb, device.capacity_tb, raid, group),
    endurance: device.dwpd
      ? Math.ceil((writesTbPerDay * level.writeFactor * scenario.write_amplification) /
                  (device.dwpd * device.capacity_tb) - 1e-9)
      : 0,
    raid_minimum: level.min
  };
  const drives = Object.fromEntries(CONSTRAINTS.map((c) => [c, roundForRaid(Math.max(raw[c], 0), raid, group)]));
  drives.raid_minimum = roundForRaid(level.min, raid, group);
  // The largest need (before RAID rounding) binds; ties go to the earlier constraint (IOPS first).
  const binding = CONSTRAINTS.reduce((best, c) => (raw[c] > raw[best] ? c : best), CONSTRAINTS[0]);
  const arrayDrives = Math.max(...CONSTRAINTS.map((c) => drives[c]));
  const spares = scenario.hot_spares;
  const total = arrayDrives + spares;

  const usableTb = usableCapacityTb(arrayDrives, device.capacity_tb, raid, group);
  const deliverableIops = (arrayDrives * device.iops_per_drive) / (read + level.penalty * write);
  const deliverableMbps = device.mbps_per_drive
    ? (arrayDrives * device.mbps_per_drive) / (read + level.writeFactor * write) : null;
  const enduranceDwpdNeeded = (writesTbPerDay * level.writeFactor * scenario.write_amplification) /
    (arrayDrives * device.capacity_tb);
  const cost = device.price_usd ? total * device.price_usd : null;

  const headroom = {
    iops: deliverableIops / scenario.front_iops,
    capacity: usableTb / capacityTb,
    throughput: deliverableMbps === null ? null : deliverableMbps / frontMbps,
    endurance: device.dwpd ? (enduranceDwpdNeeded > 0 ? device.dwpd / enduranceDwpdNeeded : null) : null
  };
  const result = {
    ok: true,
    device_id: device.device_id ?? null,
    iops_source: device.iops_source ?? "measured",
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
    required_dwpd: enduranceDwpdNeeded,
    endurance_note: device.endurance_years && scenario.horizon_years > device.endurance_years
      ? `the ${scenario.horizon_years}-year horizon outlasts the ${device.endurance_years}-year warranty`
      : null,
    cost_usd: cost,
    usd_per_usable_tb: cost !== null && usableTb > 0 ? cost / usableTb : null,
    usd_per_iops: cost !== null && deliverableIops > 0 ? cost / deliverableIops : null,
    headroom
  };
  result.summary = summarize(result);
  return sanitize(result);
}

function summarize(r) {
  const label = CONSTRAINT_LABELS[r.binding];
  const others = ["iops", "capacity", "throughput", "endurance"]
    .filter((c) => c !== r.binding && r.headroom[c] !== null && r.headroom[c] !== undefined)
    .map((c) => `${fmt(r.headroom[c])}x the ${CONSTRAINT_LABELS[c]} you need`);
  const base = `${label}-bound: ${r.array_drives} drive${r.array_drives === 1 ? "" : "s"}` +
    (r.spares ? ` (+${r.spares} spare${r.spares === 1 ? "" : "s"})` : "");
  return others.length ? `${base} give ${others.join(", ")}` : base;
}

function fmt(x) {
  return x >= 100 ? Math.round(x).toLocaleString("en-US") : x.toFixed(1);
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
