// Shaping fio rows for the charts: measured per-direction rows, read+write totals, and
// published IO figures (long or wide) in the same shape. Pure functions.
import {profileOf} from "./fio-charts.js";
import {setupOf} from "./compare-logic.js";
import {withFields} from "./data.js";

/** Identity of one fio job entry across its direction rows. */
export function jobKey(r) {
  return [r.run_id, r.source_path, r.started_at, r.group_id, r.job_name, r.outstanding_ios, r.hostname].map((v) => v ?? "").join("|");
}

/**
 * Measured rows in chart shape: device label, profile, setup. Adds a "total" row per job entry
 * (read + write + trim IOPS and MiB/s; IO-weighted mean latency; percentiles cannot be added, so
 * they stay null on totals of two or more directions; a one-direction job's total is that row).
 */
export function shapeMeasured(rows, deviceLabel) {
  const base = withFields(rows.filter((r) => !r.is_aggregate), (r) => ({
    device_id: r.device_id ?? r.device,
    device_label: deviceLabel(r.device_id ?? r.device),
    profile: profileOf(r),
    setup: setupOf(r),
    array_layout: r.array_layout ?? r.data_array_layout ?? null
  }));
  const groups = new Map();
  for (const r of base) {
    const k = jobKey(r);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(r);
  }
  const membersOf = new Map([...groups.values()].map((members) => [members[0], members]));
  const totals = withFields([...membersOf.keys()], (first) => {
    const members = membersOf.get(first);
    // (both kinds of total set the same fields, in the same order: see withFields)
    if (members.length === 1) {
      // A job that did IO in one direction only (a write-only or read-only profile): its total
      // is that direction, percentiles included (they describe every IO it did). Without this row
      // such jobs vanished from the default "read + write" view of /fio.
      return {
        direction: "total", fio_result_id: null,
        iops: first.iops ?? null, bw_mib_per_s: first.bw_mib_per_s ?? null, clat_mean_us: first.clat_mean_us ?? null,
        lat_mean_us: first.lat_mean_us ?? null, clat_p50_us: first.clat_p50_us ?? null, clat_p95_us: first.clat_p95_us ?? null,
        clat_p99_us: first.clat_p99_us ?? null, clat_p99_9_us: first.clat_p99_9_us ?? null, clat_max_us: first.clat_max_us ?? null,
        provenance: `${first.provenance ?? first.source_path ?? ""} (${first.direction} only)`
      };
    }
    const iops = sum(members.map((m) => m.iops));
    const weighted = members.every((m) => typeof m.clat_mean_us === "number" && typeof m.iops === "number") && iops > 0
      ? members.reduce((s, m) => s + m.clat_mean_us * m.iops, 0) / iops : null;
    return {
      direction: "total", fio_result_id: null,
      iops,
      bw_mib_per_s: sum(members.map((m) => m.bw_mib_per_s)),
      clat_mean_us: weighted,
      lat_mean_us: null,
      clat_p50_us: null, clat_p95_us: null, clat_p99_us: null, clat_p99_9_us: null, clat_max_us: null,
      provenance: `${first.provenance ?? first.source_path ?? ""} (sum of ${members.map((m) => m.direction).join(" + ")})`
    };
  });
  return [...base, ...totals];
}

function sum(values) {
  const nums = values.filter((v) => typeof v === "number" && Number.isFinite(v));
  return nums.length === values.length ? nums.reduce((s, v) => s + v, 0) : null;
}

/**
 * Published IO results (marts.fct_published_io_results), long (metric + value) or wide, as rows
 * in the fio chart shape: direction "total", IOPS and MiB/s columns.
 */
export function shapePublished(rows, deviceLabel) {
  if (rows.length === 0) return [];
  const isLong = "metric" in rows[0];
  let wide = rows;
  if (isLong) {
    const groups = new Map();
    for (const r of rows) {
      const key = [r.study_id, r.host_id, r.device_id, r.array_layout ?? r.array, r.profile_id, r.outstanding_ios,
        r.measurement_area, r.cpu_setting, r.source_path, r.citation ?? r.source ?? r.provenance, r.csv_line].join("|");
      const value = r.metric_value ?? r.value;
      const g = groups.get(key) ?? {...r, iops: null, bw_mib_per_s: null, min_read_latency_ms: null, min_write_latency_ms: null};
      if (r.metric === "iops") g.iops = value;
      else if (r.metric === "mb_per_s" || r.metric === "mib_per_s") g.bw_mib_per_s = value;
      else if (r.metric === "min_read_latency_ms") g.min_read_latency_ms = value;
      else if (r.metric === "min_write_latency_ms") g.min_write_latency_ms = value;
      groups.set(key, g);
    }
    wide = [...groups.values()];
  }
  return withFields(wide, (r) => ({
    source_kind: r.source_kind ?? "published",
    direction: "total",
    device_id: r.device_id,
    device_label: deviceLabel(r.device_id),
    profile: r.standard_profile_id ?? r.profile_id ?? r.profile ?? "unknown profile",
    // the profile's block size, written as fio writes it ("8k"), so published figures meet measured jobs
    block_size: r.block_size ?? (typeof r.block_size_kib === "number" ? `${r.block_size_kib}k` : null),
    array_layout: r.array_layout ?? r.array ?? null,
    bw_mib_per_s: r.bw_mib_per_s ?? null,
    setup: setupOf(r),
    provenance: r.provenance ?? [r.study_id, r.citation ?? r.source].filter(Boolean).join(": ")
  }));
}
