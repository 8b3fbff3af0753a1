// DOM of the sizing page's answer: the ranked table (every constraint's headroom, the binding one
// highlighted, the evidence one click away), the sensitivity table and the one-page print
// summary. Text from data is always set as text (ui.js el), never parsed as HTML.
import {el} from "./ui.js";
import {CONSTRAINT_LABELS, RAID_LEVELS} from "./sizing.js";
import {STATISTICS} from "./sizing-evidence.js";
import {count, latency, money, sig, times} from "./sizing-format.js";

/** A small colour square: the device's colour on every page (palette.js). */
export function swatch(color) {
  return el("span", {class: "swatch", style: `background:${/^#[0-9a-fA-F]{3,8}$/.test(color) ? color : "#999"}`, "aria-hidden": "true"});
}

/** The latency cell: "p99 ≤ 2 ms: met" (level) or "latency unverified". */
export function latencyText(row) {
  const ev = row.evidence;
  const stat = STATISTICS[ev.latency.statistic].short;
  if (row.edited.iops_per_drive) return "latency unverified (IOPS typed in)";
  if (ev.latency.status === "met") {
    const value = ev.latency.value_us === null ? "" : ` (${latency(ev.latency.value_us)})`;
    return `${stat} ≤ ${latency(ev.latency.target_us)}: met${value}`;
  }
  return "latency unverified";
}

function levelBadge(row) {
  if (row.edited.iops_per_drive) return el("span", {class: "badge level-typed"}, "typed in");
  return el("span", {class: `badge level-${row.evidence.level_key}`}, row.evidence.level_label);
}

function capitalize(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function runLink(runId) {
  return el("a", {href: `runs/run?id=${encodeURIComponent(runId)}`}, runId);
}

function headroomCell(row, c, text) {
  const binding = row.result.binding === c;
  const status = row.result.constraints[c].status;
  return el("td", {class: `num constraint ${binding ? "binding" : ""} status-${status.replace(" ", "-")}`,
                   title: binding ? `${CONSTRAINT_LABELS[c]} decides the drive count` : null}, text);
}

/**
 * The ranked results table: one row per device with every constraint's headroom (the binding one
 * highlighted), the costs, and an Evidence button that opens the evidence row beneath it.
 */
export function resultsTable(rows, {scenario, statistic}) {
  const raid = RAID_LEVELS[String(scenario.raid)];
  const head = el("tr", {},
    el("th", {}, "Device"), el("th", {}, "Evidence and latency"),
    el("th", {class: "num"}, "Drives"),
    el("th", {class: "num", title: "deliverable front-end IOPS / IOPS needed"}, "IOPS"),
    el("th", {class: "num", title: "deliverable MB/s / MB/s needed"}, "Through\u00adput"),
    el("th", {class: "num", title: "usable TB / TB needed after growth"}, "Capacity"),
    el("th", {class: "num", title: "DWPD each drive must sustain, and its rating over the horizon"}, "Endurance (DWPD)"),
    el("th", {class: "num", title: `${raid.label} needs at least ${raid.min} drives`}, "RAID min."),
    el("th", {class: "num"}, "Cost"));
  const body = el("tbody");
  rows.forEach((row, i) => {
    const r = row.result;
    const c = r.constraints;
    const detail = el("tr", {class: "evidence-row", hidden: true}, el("td", {colspan: 9}, evidencePanel(row, {scenario, statistic})));
    const toggle = el("button", {type: "button", class: "evidence-toggle", "aria-expanded": "false",
                                 onclick: () => {
                                   detail.hidden = !detail.hidden;
                                   toggle.setAttribute("aria-expanded", String(!detail.hidden));
                                   toggle.textContent = detail.hidden ? "Evidence" : "Hide evidence";
                                 }}, "Evidence");
    const endurance = c.endurance.status === "unknown"
      ? [`needs ${sig(r.required_dwpd)}`, el("br"), "rated ", el("b", {class: "unknown"}, "unknown")]
      : [`needs ${sig(r.required_dwpd)}`, el("br"), `rated ${sig(r.effective_dwpd)} · ${times(c.endurance.headroom, {missing: "no writes"})}`];
    body.append(el("tr", {class: `result-row class-${r.rank_class}`, dataset: {device: row.device_id}},
      el("td", {class: "device-cell"}, el("span", {class: "rank"}, `${i + 1}. `), swatch(row.color), row.label, el("br"), toggle),
      el("td", {class: row.latencyMet ? "latency-met" : "latency-unverified"}, levelBadge(row), el("br"), latencyText(row)),
      el("td", {class: "num"}, count(r.total_drives), r.spares ? [el("br"), el("span", {class: "muted"}, `${count(r.spares)} spare${r.spares === 1 ? "" : "s"}`)] : null),
      headroomCell(row, "iops", times(c.iops.headroom)),
      headroomCell(row, "throughput", c.throughput.status === "unknown" ? el("b", {class: "unknown"}, "unknown") : times(c.throughput.headroom)),
      headroomCell(row, "capacity", [times(c.capacity.headroom), el("br"), `${sig(r.usable_tb)} TB`]),
      headroomCell(row, "endurance", endurance),
      headroomCell(row, "raid_minimum", times(c.raid_minimum.headroom)),
      el("td", {class: "num cost"}, el("b", {}, money(r.cost_usd)),
         r.cost_usd === null ? null : [el("br"), `${money(r.usd_per_usable_tb)} / usable TB`, el("br"), `${money(r.usd_per_kiops)} / 1,000 IOPS`])));
    body.append(detail);
  });
  return el("div", {class: "scroll-box results-box"}, el("table", {class: "sizing-results"}, el("thead", {}, head), body));
}

/** Everything behind one row's figures: the IOPS evidence with its runs, and each catalog figure's source. */
export function evidencePanel(row, {scenario}) {
  const ev = row.evidence;
  const r = row.result;
  const d = row.device;
  const stat = STATISTICS[ev.latency.statistic];
  const typed = (field) => (row.edited[field] ? " (typed in on this page)" : "");
  const items = [
    el("li", {}, el("b", {}, "IOPS per drive: "), `${count(row.figures.iops_per_drive)}${typed("iops_per_drive")} (${row.edited.iops_per_drive ? "typed in" : ev.level_label}). `,
       row.edited.iops_per_drive ? "A typed figure carries no latency evidence: latency unverified." : `${capitalize(ev.latency.text)}.`),
    ...ev.refs.map((ref) => el("li", {class: "ref"}, ref.kind === "run" ? ["fio ", runLink(ref.run_id), ": ", ref.text.replace(/^run \S+(, )?/, "")]
                                                   : ref.run_id ? [ref.text, " (", runLink(ref.run_id), ")"] : ref.text)),
    el("li", {}, el("b", {}, "Latency statistic: "), `${stat.label}${stat.percentile ? " of the slower direction (fio clat)" : " (IO-weighted, fio lat)"}, target ${latency(ev.latency.target_us)}.`),
    el("li", {}, el("b", {}, "Capacity per drive: "), `${sig(row.figures.capacity_tb, {digits: 4})} TB${typed("capacity_tb")} (${d.capacity_source ?? d.provenance ?? "catalog"}).`),
    el("li", {}, el("b", {}, "MB/s per drive: "), row.figures.mbps_per_drive === null ? "unknown: throughput not checked."
       : `${sig(row.figures.mbps_per_drive)}${typed("mbps_per_drive")}${row.edited.mbps_per_drive ? "" : ev.level === 4 && d.spec_seq_read_mb_per_s ? ` (spec-sheet sequential MB/s blended by the mix; ${d.spec_source ?? "source not stated"})` : " (the IOPS figure at this block size)"}.`),
    el("li", {}, el("b", {}, "Price: "), row.figures.price_usd === null ? "unknown." : `${money(row.figures.price_usd)}${typed("price_usd")}${row.edited.price_usd ? "" : ` (${d.price_source ?? "source not stated"})`}.`),
    el("li", {}, el("b", {}, "Endurance: "), row.figures.dwpd === null
       ? `DWPD unknown${d.endurance_source ? "" : " (no source states it)"}; each drive must sustain ${sig(r.required_dwpd)} DWPD = ${sig(r.daily_write_tb)} TB/day × ${RAID_LEVELS[String(scenario.raid)].writeFactor} (RAID write factor) × ${sig(scenario.write_amplification)} (write amplification) / (${count(r.array_drives)} drives × ${sig(row.figures.capacity_tb)} TB).`
       : `rated ${sig(row.figures.dwpd)} DWPD${typed("dwpd")}${row.figures.endurance_years !== null ? ` over ${sig(row.figures.endurance_years)} years` : ""}${row.edited.dwpd ? "" : ` (${d.endurance_source ?? "source not stated"})`}; needs ${sig(r.required_dwpd)} DWPD.${r.warranty_note ? ` Note: ${r.warranty_note}.` : ""}`),
    ...ev.notes.map((n) => el("li", {class: "muted"}, n)),
    ...ev.excluded.map((n) => el("li", {class: "muted"}, `Not used: ${n}.`))
  ];
  const parts = [el("ul", {class: "evidence-list"}, items)];
  if (ev.points.length) {
    parts.push(el("p", {class: "evidence-points-title"}, el("b", {}, `Measured loads at ${sig(ev.points[0].read_pct)} % reads, ${sig(ev.points[0].block_kib)} KiB (${stat.percentile ? `the slower direction's ${stat.short}` : "IO-weighted mean latency"})`)));
    parts.push(el("div", {class: "scroll-box"}, el("table", {class: "evidence-points"},
      el("thead", {}, el("tr", {}, el("th", {class: "num"}, "Outstanding IOs"), el("th", {class: "num"}, "IOPS"),
                         el("th", {class: "num"}, stat.short), el("th", {}, "Within target"), el("th", {}, "Run"))),
      el("tbody", {}, ev.points.map((p) => el("tr", {class: p.meets ? "meets" : "misses"},
        el("td", {class: "num"}, p.outstanding_ios === null ? "—" : String(p.outstanding_ios)),
        el("td", {class: "num"}, count(p.iops)),
        el("td", {class: "num"}, latency(p.value_us, {missing: "not reported"})),
        el("td", {}, p.meets ? "yes" : "no"),
        el("td", {}, runLink(p.run_id))))))));
  }
  return el("div", {class: "evidence-panel"}, parts);
}

/** Sensitivity: each row's answer now, at 2x the workload and at the next stricter statistic. */
export function sensitivityTable(variants, {stricterLabel}) {
  const cell = (v) => {
    if (!v) return el("td", {}, "—");
    if (v.notSized) return el("td", {class: "misses"}, v.notSized);
    return el("td", {class: v.latencyMet ? "" : "latency-unverified"},
      `${count(v.result.total_drives)} drives, ${money(v.result.cost_usd)}, ${CONSTRAINT_LABELS[v.result.binding]}-bound`,
      v.latencyMet ? null : el("span", {class: "muted"}, " · latency unverified"));
  };
  return el("div", {class: "scroll-box"}, el("table", {class: "sizing-sensitivity"},
    el("thead", {}, el("tr", {}, el("th", {}, "Device"), el("th", {}, "As entered"), el("th", {}, "At 2× the workload"),
                       el("th", {}, stricterLabel ? `At ${stricterLabel}` : "Stricter statistic"))),
    el("tbody", {}, variants.map((v) => el("tr", {}, el("td", {class: "device-cell"}, swatch(v.color), v.label),
      cell(v.base), cell(v.double), stricterLabel ? cell(v.stricter) : el("td", {class: "muted"}, "p99.9 is the strictest statistic measured"))))));
}

/** The one-page summary printed for a purchase request (hidden on screen, see the page's print styles). */
export function printSummary({scenarioLines, answer, rows, recommended, url, omitted = []}) {
  const table = el("table", {class: "print-table"},
    el("thead", {}, el("tr", {}, ["Device", "Evidence", "Latency", "Drives", "Binds", "Endurance need / rating (DWPD)", "Cost", "$ / usable TB", "$ / 1,000 IOPS"].map((h) => el("th", {}, h)))),
    el("tbody", {}, rows.slice(0, 10).map((row) => el("tr", {},
      el("td", {}, row.label), el("td", {}, row.edited.iops_per_drive ? "typed in" : row.evidence.level_label), el("td", {}, latencyText(row)),
      el("td", {class: "num"}, count(row.result.total_drives)), el("td", {}, CONSTRAINT_LABELS[row.result.binding]),
      el("td", {}, `${sig(row.result.required_dwpd)} / ${row.result.effective_dwpd === null ? "unknown" : sig(row.result.effective_dwpd)}`),
      el("td", {class: "num"}, money(row.result.cost_usd)), el("td", {class: "num"}, money(row.result.usd_per_usable_tb, {missing: "—"})),
      el("td", {class: "num"}, money(row.result.usd_per_kiops, {missing: "—"}))))));
  return el("section", {class: "print-summary"},
    el("h1", {}, "Storage sizing summary"),
    el("p", {class: "print-scenario"}, scenarioLines.map((l) => [l, el("br")])),
    el("p", {class: "print-answer"}, answer),
    table,
    rows.length > 10 ? el("p", {}, `… and ${rows.length - 10} more rows on the page.`) : null,
    omitted.length ? el("p", {}, `Not in this table: ${omitted.join("; ")}.`) : null,
    recommended ? el("div", {class: "print-evidence"}, el("b", {}, `Evidence for ${recommended.label}: `),
      recommended.edited.iops_per_drive ? "IOPS per drive typed in (no latency evidence)." : `${recommended.evidence.latency.text}.`,
      recommended.evidence.refs.length ? ` Sources: ${recommended.evidence.refs.map((r) => (r.kind === "run" ? `run ${r.run_id}` : r.text)).join("; ")}.` : null) : null,
    el("p", {class: "print-method"},
      "Method: back-end IOPS = front IOPS × (read share + RAID write penalty × write share); each drive's IOPS is the highest load whose latency statistic stays within the target " +
      "(measured, interpolated between measurements, or Little's law on published figures; spec sheets never verify latency). Required DWPD = host writes × RAID write factor × write amplification / (drives × capacity). " +
      "Rows marked “latency unverified” have no evidence that the latency target is met."),
    el("p", {class: "print-url"}, `Reproduce: ${url}`));
}
