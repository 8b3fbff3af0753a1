// What one drive can do for one workload at one latency target, and how we know it.
// Pure functions, no DOM: the sizing page and tests/js/sizing-evidence.test.mjs use them.
// docs/sizing.md explains each level with hand-worked examples.
//
// Evidence levels, tried in this order for every device:
//   1 measured        fio jobs of this device at this read share (within READ_PCT_TOLERANCE
//                     points) and this block size: the highest load whose latency statistic
//                     (worst direction's p99 or p99.9 completion latency, or the IO-weighted
//                     mean total latency) is within the target
//   2 interpolated    the same device measured at other read shares and/or block sizes around
//                     this one: per-IO service time (1 / IOPS at the target) interpolated
//                     linearly in block size, then in read share, only between measured points
//                     (never extrapolated)
//   3 Little's law    published IOPS at a known number of outstanding IOs: mean latency =
//                     outstanding IOs / IOPS. Satisfies a mean target only; for percentile
//                     targets, and for maxima over an unstated depth, the latency is unverified
//   4 spec sheet      data-sheet IOPS blended by the mix: never satisfies a latency target
// Synthetic rows never count; figures of multi-drive arrays are never per-drive figures.

/** Read shares within this many percentage points count as "this workload" (level 1). */
export const READ_PCT_TOLERANCE = 5;

export const STATISTICS = {
  "mean": {label: "mean latency", short: "mean", percentile: false, stricter: "p99"},
  "p99": {label: "p99 completion latency", short: "p99", percentile: true, stricter: "p99.9"},
  "p99.9": {label: "p99.9 completion latency", short: "p99.9", percentile: true, stricter: null}
};

export const LEVELS = {
  1: {key: "measured", label: "measured"},
  2: {key: "interpolated", label: "interpolated"},
  3: {key: "littles-law", label: "Little's law"},
  4: {key: "spec-sheet", label: "spec sheet"},
  0: {key: "none", label: "no figure"}
};

const BLOCK_EPS = 1e-6;

function num(x) {
  return typeof x === "number" && Number.isFinite(x) ? x : null;
}

function isSynthetic(row) {
  return row.source_kind === "synthetic" || row.is_synthetic === true;
}

/** True for a single drive (no array, or an array of one). */
export function isSingleDrive(row) {
  const count = num(row.device_count ?? row.data_device_count);
  const layout = row.array_layout;
  return (count === null || count === 1) && (layout === null || layout === undefined || layout === "" || layout === "single");
}

/**
 * fio result rows (one per job and direction, as fct_fio_results) -> one record per job:
 * total IOPS, worst direction's p99 / p99.9 completion latency, IO-weighted mean latency.
 * Rows of interim reports, client aggregates and failed jobs are left out.
 */
export function fioJobs(rows) {
  const jobs = new Map();
  for (const r of rows) {
    if (r.is_interim || r.is_aggregate || (num(r.error_code) ?? 0) !== 0) continue;
    if (r.direction !== "read" && r.direction !== "write") continue;
    const key = r.fio_job_id ?? `${r.run_id}|${r.source_path}|${r.job_name}|${r.group_id}`;
    let job = jobs.get(key);
    if (!job) {
      job = {
        fio_job_id: key, run_id: r.run_id ?? null, device_id: r.device_id ?? null, source_kind: r.source_kind ?? null,
        synthetic: isSynthetic(r), single: isSingleDrive(r), array_layout: r.array_layout ?? null,
        read_pct: num(r.job_read_pct ?? r.read_pct), block_kib: num(r.block_size_kib) ?? kibOf(r.block_size),
        outstanding_ios: num(r.outstanding_ios), measurement_area: r.measurement_area ?? null, job_name: r.job_name ?? null,
        iops: 0, p99_us: null, p99_9_us: null, weighted_lat: 0, lat_iops: 0, missing: {p99: false, "p99.9": false, mean: false}
      };
      jobs.set(key, job);
    }
    const iops = num(r.iops) ?? 0;
    job.iops += iops;
    if (iops <= 0) continue; // a direction that did no IO has no latency to count
    const p99 = num(r.clat_p99_us);
    const p999 = num(r.clat_p99_9_us);
    const mean = num(r.lat_mean_us);
    if (p99 === null) job.missing.p99 = true; else job.p99_us = Math.max(job.p99_us ?? 0, p99);
    if (p999 === null) job.missing["p99.9"] = true; else job.p99_9_us = Math.max(job.p99_9_us ?? 0, p999);
    if (mean === null) job.missing.mean = true; else { job.weighted_lat += iops * mean; job.lat_iops += iops; }
  }
  return [...jobs.values()].map((j) => ({
    fio_job_id: j.fio_job_id, run_id: j.run_id, device_id: j.device_id, source_kind: j.source_kind, synthetic: j.synthetic,
    single: j.single, array_layout: j.array_layout, read_pct: j.read_pct, block_kib: j.block_kib,
    outstanding_ios: j.outstanding_ios, measurement_area: j.measurement_area, job_name: j.job_name, iops: j.iops,
    // A statistic missing for one direction is unknown for the job (the worst direction decides).
    "p99": j.missing.p99 ? null : j.p99_us,
    "p99.9": j.missing["p99.9"] ? null : j.p99_9_us,
    "mean": j.missing.mean || j.lat_iops === 0 ? null : j.weighted_lat / j.lat_iops
  })).filter((j) => j.iops > 0 && j.device_id !== null && j.read_pct !== null && j.block_kib !== null);
}

function kibOf(text) {
  const m = /^(\d+(?:\.\d+)?)\s*([kmg]?)i?b?$/i.exec(String(text ?? "").trim());
  if (!m) return null;
  const unit = {"": 1 / 1024, k: 1, m: 1024, g: 1024 * 1024}[m[2].toLowerCase()];
  return Number(m[1]) * unit;
}

function sameBlock(a, b) {
  return Math.abs(a - b) <= BLOCK_EPS * Math.max(1, Math.abs(b));
}

/** Per-IO time interpolation: IOPS at x between (x1, c1) and (x2, c2), linear in 1 / IOPS. */
export function harmonicLerp(x, x1, c1, x2, c2) {
  if (x2 === x1) return Math.min(c1, c2);
  const w = (x - x1) / (x2 - x1);
  return 1 / ((1 - w) / c1 + w / c2);
}

/** MB/s (decimal) of `iops` IOs of `blockKib` KiB. */
export function mbpsOf(iops, blockKib) {
  return (iops * blockKib * 1024) / 1e6;
}

function pct(x) {
  return `${Number(x.toFixed(1))} %`;
}

function kib(x) {
  return `${Number(x.toFixed(2))} KiB`;
}

/**
 * One measured curve (jobs of one read share and block size): the highest-IOPS job whose
 * statistic is within the target, or none. `points` lists every job, lowest load first.
 */
export function bestWithinTarget(jobs, statistic, targetUs) {
  const points = [...jobs].sort((a, b) => (a.outstanding_ios ?? 0) - (b.outstanding_ios ?? 0) || a.iops - b.iops)
    .map((j) => ({job: j, value_us: j[statistic], meets: j[statistic] !== null && j[statistic] <= targetUs}));
  const best = points.filter((p) => p.meets).sort((a, b) => b.job.iops - a.job.iops)[0] ?? null;
  const known = points.filter((p) => p.value_us !== null);
  const lowest = known.sort((a, b) => a.value_us - b.value_us)[0] ?? null;
  return {best, points, lowest};
}

/** Evidence of one device, split into what may count and what may not (and why). */
export function usableJobs(jobs, deviceId) {
  const own = jobs.filter((j) => j.device_id === deviceId);
  const excluded = [];
  const synthetic = own.filter((j) => j.synthetic).length;
  const arrays = own.filter((j) => !j.synthetic && !j.single).length;
  if (synthetic) excluded.push(`${synthetic} synthetic fio job${synthetic === 1 ? "" : "s"} (never evidence for a purchase)`);
  if (arrays) excluded.push(`${arrays} fio job${arrays === 1 ? "" : "s"} on multi-drive arrays (not per-drive figures)`);
  return {jobs: own.filter((j) => !j.synthetic && j.single), excluded};
}

function groupsOf(jobs) {
  const groups = new Map();
  for (const j of jobs) {
    const key = `${j.read_pct}|${j.block_kib}`;
    if (!groups.has(key)) groups.set(key, {read_pct: j.read_pct, block_kib: j.block_kib, jobs: []});
    groups.get(key).jobs.push(j);
  }
  return [...groups.values()];
}

/** Level 1: the curve at this read share (closest within tolerance) and block size. */
export function measuredLevel(jobs, workload, statistic, targetUs) {
  const candidates = groupsOf(jobs).filter((g) => Math.abs(g.read_pct - workload.read_pct) <= READ_PCT_TOLERANCE + 1e-9 &&
                                                  sameBlock(g.block_kib, workload.block_kib));
  if (!candidates.length) return null;
  // The closest read share; on a tie the one with more writes (writes are usually the slower IOs).
  candidates.sort((a, b) => Math.abs(a.read_pct - workload.read_pct) - Math.abs(b.read_pct - workload.read_pct) || a.read_pct - b.read_pct);
  const group = candidates[0];
  const curve = bestWithinTarget(group.jobs, statistic, targetUs);
  const at = `${pct(group.read_pct)} reads, ${kib(group.block_kib)}`;
  if (!curve.lowest) {
    // Measured, but without this statistic (e.g. no p99.9 in an old fio output): no verdict.
    return {level: 1, status: "none", iops: null, group, curve,
            reason: `measured at ${at}, but no job reports the ${STATISTICS[statistic].label}`};
  }
  if (!curve.best) {
    return {
      level: 1, status: "not_met", iops: null, group, curve,
      text: `measured at ${at}: no load meets the target; the lowest ${STATISTICS[statistic].short} measured is ${fmtUs(curve.lowest.value_us)} (${oio(curve.lowest.job)})`,
      jobs: curve.points.map((p) => p.job)
    };
  }
  const job = curve.best.job;
  return {
    level: 1, status: "met", iops: job.iops, group, curve, value_us: curve.best.value_us,
    text: `measured at ${at}: ${Math.round(job.iops).toLocaleString("en-US")} IOPS with ${STATISTICS[statistic].short} ${fmtUs(curve.best.value_us)} (${oio(job)})`,
    jobs: [job]
  };
}

function oio(job) {
  return job.outstanding_ios === null ? "outstanding IOs not recorded" : `${job.outstanding_ios} outstanding IO${job.outstanding_ios === 1 ? "" : "s"}`;
}

function fmtUs(us) {
  return us < 1000 ? `${Number(us.toPrecision(3))} µs` : `${Number((us / 1000).toPrecision(3))} ms`;
}

/** IOPS within the target at one read share `g` and block size, exact or interpolated in block size. */
function atShare(groups, share, blockKib, statistic, targetUs) {
  const same = groups.filter((g) => g.read_pct === share);
  const exact = same.find((g) => sameBlock(g.block_kib, blockKib));
  if (exact) {
    const c = bestWithinTarget(exact.jobs, statistic, targetUs);
    return c.best ? {iops: c.best.job.iops, jobs: [c.best.job], how: `${pct(share)} reads at ${kib(blockKib)}`}
                  : {fail: `at ${pct(share)} reads, ${kib(blockKib)} no measured load meets the target`};
  }
  const below = same.filter((g) => g.block_kib < blockKib).sort((a, b) => b.block_kib - a.block_kib)[0];
  const above = same.filter((g) => g.block_kib > blockKib).sort((a, b) => a.block_kib - b.block_kib)[0];
  if (!below || !above) return null;
  const lo = bestWithinTarget(below.jobs, statistic, targetUs);
  const hi = bestWithinTarget(above.jobs, statistic, targetUs);
  if (!lo.best || !hi.best) {
    const failing = !lo.best ? below : above;
    return {fail: `at ${pct(share)} reads, ${kib(failing.block_kib)} no measured load meets the target`};
  }
  return {
    iops: harmonicLerp(blockKib, below.block_kib, lo.best.job.iops, above.block_kib, hi.best.job.iops),
    jobs: [lo.best.job, hi.best.job],
    how: `${pct(share)} reads between ${kib(below.block_kib)} (${Math.round(lo.best.job.iops).toLocaleString("en-US")} IOPS) and ${kib(above.block_kib)} (${Math.round(hi.best.job.iops).toLocaleString("en-US")} IOPS)`
  };
}

/**
 * Level 2: per-IO time interpolated in block size (same read share), then in read share
 * between the nearest measured shares on either side. Returns null when the workload is not
 * surrounded by measurements (nothing is extrapolated), with `reason` saying so.
 */
export function interpolatedLevel(jobs, workload, statistic, targetUs) {
  const groups = groupsOf(jobs);
  if (!groups.length) return null;
  const shares = [...new Set(groups.map((g) => g.read_pct))].sort((a, b) => a - b);
  const fails = [];
  // A share within tolerance, interpolated in block size only.
  const near = shares.filter((s) => Math.abs(s - workload.read_pct) <= READ_PCT_TOLERANCE + 1e-9)
    .sort((a, b) => Math.abs(a - workload.read_pct) - Math.abs(b - workload.read_pct) || a - b);
  for (const s of near) {
    const r = atShare(groups, s, workload.block_kib, statistic, targetUs);
    if (r?.iops) {
      return {level: 2, status: "met", iops: r.iops, jobs: r.jobs,
              text: `interpolated in block size (per-IO time linear in block size): ${r.how}`};
    }
    if (r?.fail) fails.push(r.fail);
  }
  // Read shares on both sides.
  const lower = shares.filter((s) => s < workload.read_pct).reverse();
  const upper = shares.filter((s) => s > workload.read_pct);
  const lo = firstUsable(lower, groups, workload, statistic, targetUs, fails);
  const hi = firstUsable(upper, groups, workload, statistic, targetUs, fails);
  if (lo && hi) {
    const iops = harmonicLerp(workload.read_pct, lo.share, lo.r.iops, hi.share, hi.r.iops);
    return {
      level: 2, status: "met", iops, jobs: [...lo.r.jobs, ...hi.r.jobs],
      text: `interpolated in read share (per-IO time blended by the mix) between ${lo.r.how} (${Math.round(lo.r.iops).toLocaleString("en-US")} IOPS) and ${hi.r.how} (${Math.round(hi.r.iops).toLocaleString("en-US")} IOPS)`
    };
  }
  const measuredAt = groups.map((g) => `${pct(g.read_pct)} reads / ${kib(g.block_kib)}`);
  return {level: 2, status: "none", iops: null,
          reason: fails.length ? fails.join("; ")
            : `measured only at ${[...new Set(measuredAt)].sort().join(", ")}; this workload lies outside them and is not extrapolated`};
}

function firstUsable(shares, groups, workload, statistic, targetUs, fails) {
  for (const s of shares) {
    const r = atShare(groups, s, workload.block_kib, statistic, targetUs);
    if (r?.iops) return {share: s, r};
    if (r?.fail) { fails.push(r.fail); return null; } // the nearest measured share fails: no bracket
  }
  return null;
}

/** Deepest outstanding-IO count a published maximum may have been measured at ("1 - 512 outstanding IOs"). */
export function maxDepthOf(row) {
  const text = `${row.note ?? ""} ${row.provenance ?? ""}`;
  const m = /(\d+)\s*[-–]\s*(\d+)\s+outstanding/i.exec(text) ?? /up to (\d+)()\s+outstanding/i.exec(text);
  if (!m) return null;
  return Number(m[2] || m[1]);
}

/** Published per-drive IOPS rows of a device at this workload (closest read share within tolerance). */
export function publishedRows(rows, deviceId, workload) {
  const own = rows.filter((r) => r.device_id === deviceId && !isSynthetic(r) && (r.metric === "iops" || r.metric === "mb_per_s"));
  const excluded = [];
  const arrays = own.filter((r) => !isSingleDrive(r)).length;
  if (arrays) excluded.push(`${arrays} published figure${arrays === 1 ? "" : "s"} of multi-drive arrays (not per-drive figures)`);
  const usable = own.filter((r) => isSingleDrive(r)).map((r) => ({...r, iops_value: num(r.iops) ?? num(r.iops_from_mib_per_s)}))
    .filter((r) => r.iops_value !== null && r.iops_value > 0 && num(r.read_pct) !== null && num(r.block_size_kib) !== null &&
                   Math.abs(r.read_pct - workload.read_pct) <= READ_PCT_TOLERANCE + 1e-9 && sameBlock(r.block_size_kib, workload.block_kib));
  if (!usable.length) return {rows: [], excluded};
  const closest = Math.min(...usable.map((r) => Math.abs(r.read_pct - workload.read_pct)));
  const atShare = usable.filter((r) => Math.abs(r.read_pct - workload.read_pct) === closest);
  const share = Math.min(...atShare.map((r) => r.read_pct));
  return {rows: atShare.filter((r) => r.read_pct === share), excluded};
}

function pubRef(r) {
  return {kind: "published", text: `${r.provenance}${r.qualifier ? ` [${r.qualifier}]` : ""}`, run_id: r.run_id ?? null};
}

/**
 * Level 3: Little's law on published figures. Returns {status: met|not_met|unverified, iops, ...}
 * or null when the device has no published IOPS at this workload.
 */
export function littlesLawLevel(rows, statistic, targetUs) {
  if (!rows.length) return null;
  const known = rows.filter((r) => num(r.outstanding_ios) !== null && r.outstanding_ios > 0)
    .map((r) => ({row: r, iops: r.iops_value, depth: r.outstanding_ios, mean_us: (r.outstanding_ios / r.iops_value) * 1e6}));
  const unknown = rows.filter((r) => !(num(r.outstanding_ios) !== null && r.outstanding_ios > 0))
    .map((r) => {
      const depth = maxDepthOf(r);
      return {row: r, iops: r.iops_value, max_depth: depth, bound_us: depth === null ? null : (depth / r.iops_value) * 1e6,
              min_us: (1 / r.iops_value) * 1e6};
    });
  const withinMean = known.filter((k) => k.mean_us <= targetUs).sort((a, b) => b.iops - a.iops);
  const stat = STATISTICS[statistic];
  const describeKnown = (k) => `${Math.round(k.iops).toLocaleString("en-US")} IOPS at ${k.depth} outstanding IO${k.depth === 1 ? "" : "s"} gives a mean latency of ${k.depth} / ${Math.round(k.iops).toLocaleString("en-US")} = ${fmtUs(k.mean_us)}`;
  const describeUnknown = (u) => u.bound_us === null
    ? `${Math.round(u.iops).toLocaleString("en-US")} IOPS is a maximum at an unstated number of outstanding IOs: its latency cannot be bounded`
    : `${Math.round(u.iops).toLocaleString("en-US")} IOPS is a maximum over 1-${u.max_depth} outstanding IOs at an unstated depth: its mean latency lies between ${fmtUs(u.min_us)} and ${u.max_depth} / ${Math.round(u.iops).toLocaleString("en-US")} = ${fmtUs(u.bound_us)}`;
  // A maximum over 1-N outstanding IOs has a mean latency of at most N / IOPS: when even that
  // worst case is within a mean target, the target is met whatever the unstated depth was.
  const boundedWithin = unknown.filter((u) => u.bound_us !== null && u.bound_us <= targetUs).sort((a, b) => b.iops - a.iops);
  const bestMet = [...withinMean.map((k) => ({k, iops: k.iops})), ...boundedWithin.map((u) => ({u, iops: u.iops}))]
    .sort((a, b) => b.iops - a.iops)[0];
  if (!stat.percentile && bestMet) {
    if (bestMet.k) {
      return {level: 3, status: "met", iops: bestMet.k.iops, value_us: bestMet.k.mean_us, rows: [bestMet.k.row],
              text: `Little's law on a published figure: ${describeKnown(bestMet.k)}, within the target`};
    }
    return {level: 3, status: "met", iops: bestMet.u.iops, bound_us: bestMet.u.bound_us, rows: [bestMet.u.row],
            text: `Little's law on a published figure: ${describeUnknown(bestMet.u)}; even the worst case is within the target`};
  }
  if (!stat.percentile && known.some((k) => k.depth === 1) && !withinMean.length) {
    const k = known.filter((x) => x.depth === 1).sort((a, b) => a.mean_us - b.mean_us)[0];
    return {level: 3, status: "not_met", iops: null, value_us: k.mean_us, rows: [k.row],
            text: `Little's law on a published figure: ${describeKnown(k)}; already at one IO in flight the mean exceeds the target`};
  }
  // Unverified: the most defensible figure to size with, and why its latency is unknown.
  const why = stat.percentile ? `a published throughput gives only the mean latency, not the ${stat.short}` : "no published figure at a known depth meets the target";
  if (withinMean.length) {
    const k = withinMean[0];
    return {level: 3, status: "unverified", iops: k.iops, value_us: k.mean_us, rows: [k.row],
            text: `${describeKnown(k)}; ${why}`};
  }
  const best = unknown.sort((a, b) => b.iops - a.iops)[0] ?? known.sort((a, b) => a.iops - b.iops)[0];
  if ("depth" in best) {
    return {level: 3, status: "unverified", iops: best.iops, value_us: best.mean_us, rows: [best.row],
            text: `${describeKnown(best)}, above the target; ${why}`};
  }
  return {level: 3, status: "unverified", iops: best.iops, bound_us: best.bound_us, rows: [best.row],
          text: `${describeUnknown(best)}; latency unverified`};
}

/** Random IOPS of a read/write mix from spec read and write IOPS (per-IO times blended: harmonic). */
export function specIops(device, readShare) {
  return blend(num(device.spec_rand_read_iops), num(device.spec_rand_write_iops), readShare);
}

/** Sequential MB/s of a mix from spec read and write MB/s. */
export function specMbps(device, readShare) {
  return blend(num(device.spec_seq_read_mb_per_s), num(device.spec_seq_write_mb_per_s), readShare);
}

function blend(r, w, readShare) {
  if (readShare >= 1) return r;
  if (readShare <= 0) return w;
  if (!r || !w) return null;
  return 1 / (readShare / r + (1 - readShare) / w);
}

/**
 * The per-drive IOPS (and MB/s) to size a device with, at the workload
 * {read_pct, block_kib, statistic, latency_target_ms}, and the evidence behind it:
 * {level, iops_per_drive, mbps_per_drive, latency: {status, text, value_us, bound_us},
 *  summary, refs: [{kind: run|published|spec, run_id, text}], points, notes, excluded}.
 * latency.status: met (the figure keeps the statistic within the target), not_met (the
 * evidence shows no load of this device does), unverified (nothing checks it).
 */
export function deviceEvidence(device, {jobs = [], published = []} = {}, workload) {
  const statistic = STATISTICS[workload.statistic] ? workload.statistic : "p99";
  const targetUs = workload.latency_target_ms * 1000;
  const readShare = workload.read_pct / 100;
  const {jobs: own, excluded} = usableJobs(jobs, device.device_id);
  const notes = [];
  const base = {device_id: device.device_id, statistic, target_us: targetUs, notes, excluded, points: []};

  const l1 = own.length ? measuredLevel(own, workload, statistic, targetUs) : null;
  if (l1?.status === "none") notes.push(`Measurements of this device: ${l1.reason}.`);
  if (l1 && l1.status !== "none") {
    const points = l1.curve.points.map((p) => pointOf(p, l1.group));
    if (l1.status === "met") {
      return finish(base, {level: 1, iops: l1.iops, workload, latency: {status: "met", value_us: l1.value_us, text: l1.text},
                           refs: l1.jobs.map(runRef), points});
    }
    return finish(base, {level: 1, iops: null, workload, latency: {status: "not_met", text: l1.text},
                         refs: l1.jobs.slice(0, 3).map(runRef), points});
  }
  const l2 = own.length ? interpolatedLevel(own, workload, statistic, targetUs) : null;
  if (l2?.status === "met") {
    return finish(base, {level: 2, iops: l2.iops, workload, latency: {status: "met", text: l2.text}, refs: l2.jobs.map(runRef)});
  }
  if (l2?.reason) notes.push(`Measurements of this device: ${l2.reason}.`);

  const pub = publishedRows(published, device.device_id, workload);
  excluded.push(...pub.excluded);
  const l3 = littlesLawLevel(pub.rows, statistic, targetUs);
  if (l3) {
    return finish(base, {level: 3, iops: l3.iops, workload,
                         latency: {status: l3.status, text: l3.text, value_us: l3.value_us ?? null, bound_us: l3.bound_us ?? null},
                         refs: l3.rows.map(pubRef)});
  }
  const spec = specIops(device, readShare);
  if (spec !== null) {
    const seq = specMbps(device, readShare);
    return finish(base, {level: 4, iops: spec, mbps: seq, workload,
                         latency: {status: "unverified", text: "a data-sheet figure (queue depth and block size not stated) says nothing about latency"},
                         refs: [{kind: "spec", text: `spec sheet: random read ${fmtNum(device.spec_rand_read_iops)} / write ${fmtNum(device.spec_rand_write_iops)} IOPS, blended by the mix (${device.spec_source ?? "source not stated"})`}]});
  }
  return finish(base, {level: 0, iops: null, workload,
                       latency: {status: "unverified", text: "no measurement, published figure or spec-sheet figure at this workload"},
                       refs: []});
}

function fmtNum(x) {
  return num(x) === null ? "unknown" : Math.round(x).toLocaleString("en-US");
}

function runRef(job) {
  return {kind: "run", run_id: job.run_id,
          text: `run ${job.run_id}${job.job_name ? `, job ${job.job_name}` : ""}: ${Math.round(job.iops).toLocaleString("en-US")} IOPS at ${job.outstanding_ios ?? "?"} outstanding IOs, ${Number(job.read_pct.toFixed(1))} % reads, ${Number(job.block_kib.toFixed(2))} KiB${job.measurement_area ? `, measurement area ${job.measurement_area}` : ""}`};
}

function pointOf(p, group) {
  return {run_id: p.job.run_id, outstanding_ios: p.job.outstanding_ios, iops: p.job.iops, value_us: p.value_us, meets: p.meets,
          read_pct: group.read_pct, block_kib: group.block_kib, measurement_area: p.job.measurement_area};
}

function finish(base, {level, iops, mbps, workload, latency, refs, points}) {
  const iopsPerDrive = num(iops);
  return {
    ...base,
    level,
    level_key: LEVELS[level].key,
    level_label: LEVELS[level].label,
    iops_per_drive: iopsPerDrive,
    // At the workload's block size an IOPS figure is also a throughput figure; a spec sheet's
    // sequential MB/s is an independent ceiling.
    mbps_per_drive: num(mbps) ?? (iopsPerDrive === null ? null : mbpsOf(iopsPerDrive, workload.block_kib)),
    latency: {statistic: base.statistic, target_us: base.target_us, value_us: null, bound_us: null, ...latency},
    refs,
    points: points ?? []
  };
}
