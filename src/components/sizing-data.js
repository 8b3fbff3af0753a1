// Turn warehouse rows into the per-drive figures the sizing formulas need, saying where each
// figure comes from. Pure functions (no DOM): the sizing page and tests/js use them.

const MB_PER_MIB = 1.048576;

/** Same read share and block size (the capability mart's profile keys). */
function sameWorkload(row, workload) {
  return Math.abs((row.read_pct ?? NaN) - workload.read_pct) < 0.5 &&
    Math.abs((row.block_size_kib ?? NaN) - workload.block_kib) < 1e-9;
}

function singleDrive(row) {
  return (row.data_device_count ?? 1) === 1 && (!row.array_layout || row.array_layout === "single");
}

/**
 * Per-drive IOPS and MB/s for one device under one workload, with their source:
 *   measured     highest measured IOPS whose latency (basis p99 | mean) stays within the target
 *   published    a published maximum for the same profile (latency not stated)
 *   spec-sheet   data-sheet random IOPS blended by read share (never measured)
 *   none         nothing known: the user must type a figure
 */
export function perDriveFigures(device, capabilities, workload) {
  const rows = capabilities.filter((r) => r.device_id === device.device_id && singleDrive(r) && sameWorkload(r, workload));
  const targetUs = workload.latency_target_ms * 1000;
  const measured = rows
    .filter((r) => r.capability_kind === "measured_within_latency" && r.latency_basis === workload.latency_basis &&
                   r.latency_target_us !== null && r.latency_target_us <= targetUs + 1e-9)
    .sort((a, b) => b.iops - a.iops)[0];
  if (measured) {
    return {iops_per_drive: measured.iops, mbps_per_drive: mbps(measured.mib_per_s), iops_source: "measured",
            proof: measured.provenance, run_id: measured.run_id ?? null, latency_us: measured.latency_us ?? null};
  }
  const published = rows.filter((r) => r.capability_kind === "published_maximum").sort((a, b) => b.iops - a.iops)[0];
  if (published) {
    return {iops_per_drive: published.iops, mbps_per_drive: mbps(published.mib_per_s), iops_source: "published",
            proof: published.provenance, run_id: null, latency_us: null};
  }
  const spec = specIops(device, workload.read_pct / 100);
  if (spec !== null) {
    return {iops_per_drive: spec, mbps_per_drive: specMbps(device, workload.read_pct / 100), iops_source: "spec-sheet",
            proof: device.spec_source ? `spec sheet: ${device.spec_source}` : "spec sheet", run_id: null, latency_us: null};
  }
  return {iops_per_drive: null, mbps_per_drive: specMbps(device, workload.read_pct / 100), iops_source: "none",
          proof: "no measurement, published figure or spec for this workload", run_id: null, latency_us: null};
}

function mbps(mibPerS) {
  return mibPerS === null || mibPerS === undefined ? null : mibPerS * MB_PER_MIB;
}

/** Random IOPS of a read/write mix from spec read and write IOPS (time-weighted: harmonic). */
export function specIops(device, readShare) {
  const r = device.spec_rand_read_iops;
  const w = device.spec_rand_write_iops;
  if (readShare >= 1) return r ?? null;
  if (readShare <= 0) return w ?? null;
  if (!r || !w) return null;
  return 1 / (readShare / r + (1 - readShare) / w);
}

function specMbps(device, readShare) {
  const r = device.spec_seq_read_mb_per_s;
  const w = device.spec_seq_write_mb_per_s;
  if (readShare >= 1) return r ?? null;
  if (readShare <= 0) return w ?? null;
  if (!r || !w) return null;
  return 1 / (readShare / r + (1 - readShare) / w);
}

/**
 * IO per New-Order from TPC-C results that have both data-device IOPS and a New-Order rate:
 * (data reads + writes per second) / New-Order per second. Returns the rows used and the median.
 */
export function ioPerNewOrder(tpccRows) {
  const used = [];
  for (const r of tpccRows) {
    let value = r.io_per_new_order;
    if ((value === null || value === undefined) && r.data_read_iops !== null && r.data_write_iops !== null &&
        r.data_read_iops !== undefined && r.data_write_iops !== undefined && r.new_order_tpm > 0) {
      value = (r.data_read_iops + r.data_write_iops) / (r.new_order_tpm / 60);
    }
    if (typeof value === "number" && Number.isFinite(value) && value > 0) used.push({...r, io_per_new_order_used: value});
  }
  const sorted = used.map((r) => r.io_per_new_order_used).sort((a, b) => a - b);
  const n = sorted.length;
  const median = n === 0 ? null : n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  return {rows: used, median};
}

/** Points (usable TB, deliverable IOPS) that N = 1..maxDrives drives of a device reach. */
export function coveragePoints(device, figures, scenario, {usableCapacityTb, RAID_LEVELS, maxDrives = 64}) {
  const level = RAID_LEVELS[String(scenario.raid)];
  if (!level || !figures.iops_per_drive || !device.capacity_tb) return [];
  const read = scenario.read_pct / 100;
  const points = [];
  for (let n = level.min; n <= maxDrives; n += level.even ? 2 : 1) {
    points.push({
      drives: n,
      usable_tb: usableCapacityTb(n, device.capacity_tb, scenario.raid, scenario.raid_group_size || undefined),
      iops: (n * figures.iops_per_drive) / (read + level.penalty * (1 - read))
    });
  }
  return points.filter((p) => p.usable_tb > 0);
}
