// Warehouse rows -> what the sizing page needs besides the evidence of sizing-evidence.js:
// the IO per New-Order factor of tpmC mode, and the points of the IOPS-vs-capacity chart.
// Pure functions (no DOM): the sizing page and tests/js use them.

function num(x) {
  return typeof x === "number" && Number.isFinite(x) ? x : null;
}

function usableTpcc(r) {
  return r.source_kind !== "synthetic" && (r.result_status === null || r.result_status === undefined || r.result_status === "ok");
}

// Rows that describe the same TPC-C test: same run, study, host, device, configuration, warehouses.
function testKey(r) {
  return [r.run_id, r.study_id, r.host_id, r.device_id, r.db_config_id, r.warehouses, r.page_size_kib, r.buffer_pool_gib]
    .map((v) => v ?? "").join("|");
}

const hasIops = (r) => num(r.data_read_iops) !== null && num(r.data_write_iops) !== null;

/**
 * IO per New-Order from TPC-C results with data-device IOPS: (data reads + writes per second) /
 * New-Orders per second. A row with both figures counts as it is (its io_per_new_order when the
 * warehouse computed one). A row with IOPS but no New-Order rate (a study printing them in two
 * figures, e.g. Samsung's Figure 7 IOPS without connections next to Figure 6's New-Order rates)
 * is paired with the one row of the same test that has a New-Order rate and no IOPS; when there
 * is not exactly one, it is left out and listed in `skipped`.
 * Returns {rows: [{factor, read_share, tpm, iops, sources, ...}], median, min, max, skipped}.
 */
export function ioPerNewOrder(tpccRows) {
  const rows = tpccRows.filter(usableTpcc);
  const used = [];
  const skipped = [];
  const tpmOnly = new Map();
  for (const r of rows) {
    if (num(r.new_order_tpm) > 0 && !hasIops(r)) {
      const key = testKey(r);
      if (!tpmOnly.has(key)) tpmOnly.set(key, []);
      tpmOnly.get(key).push(r);
    }
  }
  for (const r of rows) {
    const direct = num(r.io_per_new_order);
    if (hasIops(r) && num(r.new_order_tpm) > 0) {
      const iops = r.data_read_iops + r.data_write_iops;
      used.push(entry(r, r, direct ?? iops / (r.new_order_tpm / 60), iops));
    } else if (direct !== null && direct > 0) {
      used.push(entry(r, r, direct, null));
    } else if (hasIops(r)) {
      const partners = tpmOnly.get(testKey(r)) ?? [];
      const matching = partners.filter((p) => num(r.connections) === null || num(p.connections) === num(r.connections));
      if (matching.length === 1) {
        const p = matching[0];
        const iops = r.data_read_iops + r.data_write_iops;
        used.push(entry(r, p, iops / (p.new_order_tpm / 60), iops));
      } else {
        skipped.push({row: r, reason: matching.length ? `${matching.length} New-Order rates of the same test could belong to these IOPS` : "no New-Order rate for the same test"});
      }
    }
  }
  const values = used.map((u) => u.factor).filter((v) => v > 0).sort((a, b) => a - b);
  const n = values.length;
  const median = n === 0 ? null : n % 2 ? values[(n - 1) / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return {rows: used.filter((u) => u.factor > 0), median, min: n ? values[0] : null, max: n ? values[n - 1] : null, skipped};
}

function entry(iopsRow, tpmRow, factor, iops) {
  const reads = num(iopsRow.data_read_iops);
  return {
    factor,
    iops,
    tpm: num(tpmRow.new_order_tpm),
    read_share: iops && reads !== null ? reads / iops : null,
    device_id: iopsRow.device_id ?? null,
    db_config_id: iopsRow.db_config_id ?? null,
    db_server: iopsRow.db_server ?? null,
    connections: num(tpmRow.connections),
    warehouses: num(iopsRow.warehouses),
    run_id: iopsRow.run_id ?? null,
    source_kind: iopsRow.source_kind ?? null,
    paired: iopsRow !== tpmRow,
    sources: iopsRow === tpmRow ? [iopsRow.provenance] : [`IOPS: ${iopsRow.provenance}`, `New-Order rate: ${tpmRow.provenance}`]
  };
}

/**
 * Points (usable TB, deliverable front-end IOPS) that N drives reach, for N from the RAID
 * minimum to `maxDrives`, at most `maxPoints` of them spaced evenly on a log scale: the chart
 * costs the same for 4 drives or 4 billion (a loop over every N froze the page).
 */
export function coveragePoints(figures, scenario, {usableCapacityTb, RAID_LEVELS, maxDrives = 64, maxPoints = 60}) {
  const level = RAID_LEVELS[String(scenario.raid)];
  if (!level || !(figures.iops_per_drive > 0) || !(figures.capacity_tb > 0)) return [];
  const group = scenario.raid_group_size || undefined;
  const step = level.even ? 2 : group && level.parity ? group : 1;
  const first = Math.max(level.min, step);
  const last = Math.max(first, Math.min(maxDrives, 1e12));
  const read = scenario.read_pct / 100;
  const ioCost = read + level.penalty * (1 - read);
  const counts = new Set();
  const span = Math.log(last / first);
  for (let i = 0; i < maxPoints; i++) {
    const n = first * Math.exp((span * i) / Math.max(1, maxPoints - 1));
    counts.add(Math.max(first, Math.round(n / step) * step));
  }
  counts.add(Math.ceil(last / step) * step);
  return [...counts].sort((a, b) => a - b).map((n) => ({
    drives: n,
    usable_tb: usableCapacityTb(n, figures.capacity_tb, scenario.raid, group),
    iops: (n * figures.iops_per_drive) / ioCost
  })).filter((p) => p.usable_tb > 0);
}
