// Property test over random scenarios and random evidence (seeded, so a failure reproduces):
// every row that claims a constraint is met really meets it (checked with formulas written out
// again here, not with the module's), no spec-sheet-only row ever meets a latency target, a
// latency is "met" only on evidence that can prove it, unknown endurance is never "met", and
// nothing is ever NaN or Infinity.
import assert from "node:assert/strict";
import {test} from "node:test";
import {RAID_LEVELS, rankResults, sizeDevice} from "../../src/components/sizing.js";
import {STATISTICS, deviceEvidence, fioJobs} from "../../src/components/sizing-evidence.js";
import {count, money, sig, times} from "../../src/components/sizing-format.js";

const CASES = 600;

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function make(seed) {
  const r = rng(seed);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const logUniform = (lo, hi) => Math.exp(Math.log(lo) + r() * (Math.log(hi) - Math.log(lo)));
  const maybe = (p, f) => (r() < p ? f() : null);
  const raid = pick(Object.keys(RAID_LEVELS));
  const level = RAID_LEVELS[raid];
  const readPct = pick([0, 30, 50, 67, 70, 73, 100, Math.round(r() * 100)]);
  const blockKib = pick([4, 8, 8, 16, 64, 0.5, 1024]);
  const scenario = {
    front_iops: Math.round(logUniform(1, 1e8)), read_pct: readPct, block_kib: blockKib,
    capacity_tb: logUniform(0.001, 1e6), growth_pct_per_year: pick([0, 0, 20, r() * 200]), horizon_years: pick([0, 3, 5, r() * 30]),
    daily_write_tb: maybe(0.3, () => r() * 1e3), write_amplification: 1 + r() * 19, raid,
    raid_group_size: level.parity && r() < 0.5 ? level.min + Math.floor(r() * (64 - level.min)) : undefined,
    hot_spares: Math.floor(r() * 5)
  };
  const statistic = pick(Object.keys(STATISTICS));
  const workload = {read_pct: readPct, block_kib: blockKib, latency_target_ms: logUniform(0.01, 100), statistic};
  // Evidence: some devices measured (maybe only synthetic or array jobs), some published, some spec only.
  const kind = pick(["measured", "synthetic-only", "array-only", "published", "spec", "nothing"]);
  const rows = [];
  const published = [];
  if (["measured", "synthetic-only", "array-only"].includes(kind)) {
    // Curves at this workload (level 1), around its read share or around its block size (level 2).
    const layout = pick(["exact", "around-share", "around-block"]);
    const groups = layout === "exact" ? [[readPct, blockKib], [pick([0, 50, 100]), blockKib]]
      : layout === "around-share" ? [[Math.max(0, readPct - 15), blockKib], [Math.min(100, readPct + 15), blockKib]]
        : [[readPct, blockKib / 2], [readPct, blockKib * 2]];
    for (const [share, bs] of groups) {
      for (let q = 1; q <= 256; q *= 4) {
        const base = logUniform(100, 1e6) * Math.sqrt(q);
        const lat = (q / base) * 1e6;
        for (const direction of ["read", "write"]) {
          const p = direction === "read" ? share / 100 : 1 - share / 100;
          if (p <= 0) continue;
          rows.push({fio_job_id: `j${share}-${bs}-${q}`, run_id: `run-${share}-${bs}-${q}`, device_id: "dev",
                     source_kind: kind === "synthetic-only" ? "synthetic" : "measured",
                     array_layout: kind === "array-only" ? "raid0_x4" : "single", device_count: kind === "array-only" ? 4 : 1,
                     job_read_pct: share, block_size_kib: bs, outstanding_ios: q, direction,
                     iops: base * p, clat_p99_us: lat * (2 + r() * 3), clat_p99_9_us: lat * (5 + r() * 5), lat_mean_us: lat * (0.8 + r() * 0.4)});
        }
      }
    }
  }
  if (kind === "published") {
    for (let i = 0; i < 3; i++) {
      const depth = maybe(0.6, () => pick([1, 4, 32, 512]));
      published.push({device_id: "dev", metric: "iops", array_layout: pick(["single", "single", "raid0_x2"]), read_pct: readPct + pick([0, 3, -4, 10]),
                      block_size_kib: blockKib, outstanding_ios: depth, iops: logUniform(100, 1e6), provenance: "study table",
                      note: depth === null && r() < 0.5 ? "maximum over 1-512 outstanding IOs" : "", source_kind: "published"});
    }
  }
  const device = {device_id: "dev",
                  spec_rand_read_iops: kind === "nothing" ? null : logUniform(100, 1e6), spec_rand_write_iops: kind === "nothing" ? null : logUniform(100, 1e6),
                  spec_seq_read_mb_per_s: maybe(0.5, () => logUniform(50, 7000)), spec_seq_write_mb_per_s: logUniform(50, 7000)};
  const figures = {capacity_tb: logUniform(0.001, 1000), price_usd: maybe(0.6, () => logUniform(1, 1e5)), dwpd: maybe(0.5, () => logUniform(0.01, 100)),
                   endurance_years: maybe(0.6, () => pick([1, 3, 5]))};
  return {scenario, workload, kind, rows, published, device, figures};
}

function checkMet(s, f, r) {
  // The formulas again, written out independently of sizing.js.
  const lvl = RAID_LEVELS[s.raid];
  const read = s.read_pct / 100;
  const perFront = read + lvl.penalty * (1 - read);
  const n = r.array_drives;
  const frontMbps = (s.front_iops * s.block_kib * 1024) / 1e6;
  const need = s.capacity_tb * (1 + s.growth_pct_per_year / 100) ** s.horizon_years;
  const group = s.raid_group_size;
  const usable = lvl.mirror ? Math.floor(n / 2) * f.capacity_tb
    : lvl.parity === 0 ? n * f.capacity_tb
      : group ? Math.floor(n / group) * (group - lvl.parity) * f.capacity_tb : (n - lvl.parity) * f.capacity_tb;
  const writes = typeof s.daily_write_tb === "number" ? s.daily_write_tb : (s.front_iops * (1 - read) * s.block_kib * 1024 * 86400) / 1e12;
  const slack = 1 - 1e-9;
  const c = r.constraints;
  if (c.iops.status === "met") assert.ok((n * f.iops_per_drive) / perFront >= s.front_iops * slack, "IOPS claimed met");
  if (c.throughput.status === "met") assert.ok((n * f.mbps_per_drive) / perFront >= frontMbps * slack, "throughput claimed met");
  if (c.capacity.status === "met") assert.ok(usable >= need * slack, `capacity claimed met: ${usable} < ${need}`);
  if (c.endurance.status === "met") {
    const perDay = f.dwpd * (f.endurance_years && s.horizon_years > f.endurance_years ? f.endurance_years / s.horizon_years : 1);
    assert.ok(perDay * n * f.capacity_tb >= writes * lvl.writeFactor * s.write_amplification * slack, "endurance claimed met");
  }
  if (c.raid_minimum.status === "met") assert.ok(n >= lvl.min);
  for (const k of Object.keys(c)) assert.ok(["met", "unknown"].includes(c[k].status), `${k} is ${c[k].status}: the drive count must meet every known need`);
}

test(`property: ${CASES} random scenarios, every claim holds`, () => {
  const results = [];
  const seen = {met: 0, unverified: 0, not_met: 0, levels: new Set()};
  for (let seed = 1; seed <= CASES; seed++) {
    const {scenario, workload, kind, rows, published, device, figures} = make(seed);
    const ev = deviceEvidence(device, {jobs: fioJobs(rows), published}, workload);
    seen[ev.latency.status]++;
    seen.levels.add(ev.level);
    const where = `seed ${seed} (${kind}, ${workload.statistic} ${workload.latency_target_ms} ms)`;
    // latency "met" only on evidence that can prove it, and only within the target
    if (ev.latency.status === "met") {
      assert.ok(ev.level === 1 || ev.level === 2 || (ev.level === 3 && workload.statistic === "mean"), `${where}: level ${ev.level} met`);
      assert.ok(kind === "measured" || kind === "published", `${where}: ${kind} evidence met a latency target`);
      const proof = ev.latency.value_us ?? ev.latency.bound_us;
      if (ev.level !== 2) assert.ok(proof !== null && proof <= ev.latency.target_us * (1 + 1e-12), `${where}: ${proof} > ${ev.latency.target_us}`);
    }
    if (kind === "spec" || kind === "nothing" || kind === "synthetic-only" || kind === "array-only") {
      assert.notEqual(ev.latency.status, "met", `${where}: no usable evidence, yet latency met`);
      assert.ok(ev.level === 4 || ev.level === 0, `${where}: level ${ev.level} from unusable evidence`);
    }
    if (ev.level === 4) assert.equal(ev.latency.status, "unverified", `${where}: spec sheet`);
    if (ev.iops_per_drive === null) continue;
    const iops = Math.min(Math.max(ev.iops_per_drive, 1), 1e8);
    const f = {...figures, iops_per_drive: iops, mbps_per_drive: ev.mbps_per_drive === null ? null : Math.min(Math.max(ev.mbps_per_drive, 0.1), 1e6)};
    const r = sizeDevice(scenario, {...f, device_id: "dev", latency_status: ev.latency.status});
    assert.equal(r.ok, true, `${where}: ${JSON.stringify(r.errors)}`);
    checkMet(scenario, f, r);
    if (f.dwpd === null) {
      assert.equal(r.constraints.endurance.status, "unknown", `${where}: unknown endurance`);
      assert.equal(r.drives.endurance, null);
      assert.equal(r.constraints.endurance.headroom, null);
    }
    assert.equal(r.latency_status === "met", ev.latency.status === "met");
    if (ev.latency.status !== "met") assert.equal(r.rank_class, 2);
    for (const key of ["total_drives", "array_drives", "usable_tb", "deliverable_iops", "required_dwpd", "backend_iops"]) {
      assert.ok(Number.isFinite(r[key]), `${where}: ${key} = ${r[key]}`);
    }
    if (f.price_usd !== null) assert.ok(Number.isFinite(r.cost_usd), `${where}: cost`);
    for (const text of [count(r.total_drives), money(r.cost_usd), sig(r.required_dwpd), times(r.constraints.capacity.headroom), r.summary]) {
      assert.doesNotMatch(text, /NaN|Infinity|undefined|null/, `${where}: ${text}`);
    }
    results.push(r);
  }
  // the generator reaches every level and every latency verdict (else the test proves little)
  assert.deepEqual([...seen.levels].sort(), [0, 1, 2, 3, 4]);
  assert.ok(seen.met > 20 && seen.unverified > 20 && seen.not_met > 5, JSON.stringify(seen));
  const ranked = rankResults(results);
  for (let i = 1; i < ranked.length; i++) assert.ok(ranked[i - 1].rank_class <= ranked[i].rank_class, "verified rows first");
});
