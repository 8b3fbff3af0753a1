// The charts of /, /tpcc and /fio in real Chromium, read from what Vega drew (each chart's
// scenegraph: its marks with their data, colours and tooltips, its legends) and checked against
// the warehouse (data/warehouse/iopscope.duckdb, queried with DuckDB):
//   one colour per device on every chart, the build's (device_colors.json + palette.js)
//   tooltips without null / undefined / NaN, numbers at 3-4 significant digits
//   lines only between consecutive measured levels of a study or host; knees ringed
//   legends list only what is drawn, untruncated, inside their cards
//   pinned conditions (connections) and the log / linear switch round-trip through the URL
//   the /tpcc quotient at 100 connections of the Samsung study is the mart's quotient
//   no Vega warning; at 390 px every chart is at least 300 px wide and nothing scrolls sideways
// The site under test is $IOPSCOPE_DIST (a private build) or dist/.
import assert from "node:assert/strict";
import {execFileSync} from "node:child_process";
import {existsSync, readFileSync, readdirSync} from "node:fs";
import {join} from "node:path";
import {after, before, describe, test} from "node:test";
import {PALETTE} from "../../src/components/palette.js";
import {DIST, ROOT, TIMER_POLLING, drawAllCharts, launchBrowser, openPage, startServer} from "./harness.mjs";

const WAREHOUSE = join(ROOT, "data", "warehouse", "iopscope.duckdb");
const PHONE = {width: 390, height: 844};
const DESKTOP = {width: 1400, height: 900};
const PAGES = ["/", "/tpcc", "/fio"];
const READY = {"/": "#chart-headline .vega-chart", "/tpcc": "#chart-throughput .vega-chart", "/fio": "#chart-iops .vega-chart"};

/** Rows of a SQL query against the warehouse file, through DuckDB's Python package (read-only). */
function sql(query) {
  const python = existsSync(join(ROOT, ".venv/bin/python")) ? join(ROOT, ".venv/bin/python") : "python3";
  const script = "import duckdb, json, sys\n" +
    "con = duckdb.connect(sys.argv[1], read_only=True)\n" +
    "cur = con.execute(sys.argv[2])\n" +
    "names = [d[0] for d in cur.description]\n" +
    "print(json.dumps([dict(zip(names, row)) for row in cur.fetchall()], default=str))\n";
  return JSON.parse(execFileSync(python, ["-c", script, WAREHOUSE, query], {encoding: "utf-8"}));
}

/** The colour the build gave each device: its slot in device_colors.json, as palette.js maps it. */
function buildColors() {
  const dir = join(DIST, "_file", "data", "pages");
  const name = readdirSync(dir).find((n) => /^device_colors\.[0-9a-f]+\.json$/.test(n));
  if (!name) return null;
  const payload = JSON.parse(readFileSync(join(dir, name), "utf-8"));
  return new Map(Object.entries(payload.slots).map(([id, slot]) => [id, PALETTE[slot % PALETTE.length].toLowerCase()]));
}

/**
 * What every drawn chart of the page shows, from Vega's scenegraph: per chart its marks (type,
 * role, datum fields, fill, stroke, size, tooltip), its lines (the data of each drawn path, in
 * order), its legend entries, its legend and axis labels as drawn, the value-axis scale type, and
 * its box and its card's.
 */
function scenes(page) {
  return page.evaluate(() => {
    const KEEP = ["device_id", "_device", "device_label", "setup", "connections", "outstanding_ios", "buffer_pool_gib", "db_config_id",
      "source_kind", "_knee", "numerator", "denominator", "numerator_id", "denominator_id", "geomean", "levels", "study_id", "host_id"];
    const pick = (d) => (d && typeof d === "object" ? Object.fromEntries(KEEP.filter((k) => k in d).map((k) => [k, d[k]])) : null);
    const values = (d) => (d && typeof d === "object" ? Object.values(d).filter((v) => typeof v !== "object").map(String) : []);
    return [...document.querySelectorAll(".vega-chart")].filter((c) => c.view).map((c) => {
      const marks = [];
      const lines = [];
      const legend = [];
      const labels = [];
      const drawnValues = new Set();
      const visit = (mark) => {
        for (const item of mark.items ?? []) {
          if (mark.role === "mark") {
            marks.push({type: mark.marktype, fill: item.fill ?? null, stroke: item.stroke ?? null, size: item.size ?? null,
              tooltip: item.tooltip ?? null, datum: pick(item.datum)});
            for (const v of values(item.datum)) drawnValues.add(v);
          }
          if (mark.role === "legend-symbol") legend.push({value: String(item.datum?.value), fill: item.fill ?? null, stroke: item.stroke ?? null});
          if (mark.marktype === "group") for (const child of item.items ?? []) visit(child);
        }
        if (mark.marktype === "line" && mark.role === "mark") lines.push((mark.items ?? []).map((i) => pick(i.datum)));
      };
      visit(c.view.scenegraph().root);
      // as drawn: Vega cuts a label too long for its limit with "…" only in the SVG
      for (const t of c.querySelectorAll("g.role-legend-label text, g.role-axis-label text")) labels.push(t.textContent);
      const card = c.closest(".card") ?? c;
      const drawnBox = (c.querySelector("svg.marks, canvas") ?? c).getBoundingClientRect();
      let yScale = null;
      try { yScale = c.view.scale("y")?.type ?? null; } catch { yScale = null; }
      return {
        id: c.closest("[id]")?.id ?? "?", marks, lines, legend, labels, yScale,
        legendValuesDrawn: legend.map((l) => drawnValues.has(l.value)),
        width: Math.round(drawnBox.width), right: drawnBox.right, cardRight: card.getBoundingClientRect().right
      };
    });
  });
}

let browser;
let server;
const visits = new Map();
before(async () => {
  browser = await launchBrowser();
  server = await startServer(DIST);
});
after(async () => {
  await browser?.close();
  server?.stop();
});

/**
 * Open a page at a viewport size, draw every chart, and record what they show, the console's
 * warnings and whether the page scrolls sideways. Each (path, size) is visited once per run.
 */
function visit(path, viewport = DESKTOP) {
  const key = `${path} ${viewport.width}`;
  if (!visits.has(key)) {
    visits.set(key, (async () => {
      const {page, problems, warnings, close} = await openPage(browser, server.url, path, {ready: READY[path.split("?")[0]], viewport, timeout: 30000});
      try {
        await drawAllCharts(page, {timeout: 60000});
        await page.waitForTimeout(300);
        const layout = await page.evaluate(() => ({scrollWidth: document.documentElement.scrollWidth, innerWidth}));
        return {charts: await scenes(page), problems: [...problems], warnings: [...warnings], layout};
      } finally {
        await close();
      }
    })());
  }
  return visits.get(key);
}

const hex = (c) => (typeof c === "string" && /^#[0-9a-f]{6}$/i.test(c) ? c.toLowerCase() : null);

describe("device colours", () => {
  test("a device has one colour, the build's, in every chart and legend of /, /tpcc and /fio", async () => {
    const expected = buildColors();
    const seen = new Map(); // device_id -> Map(colour -> [where])
    const note = (id, color, where) => {
      if (!id || !color) return;
      if (!seen.has(id)) seen.set(id, new Map());
      const m = seen.get(id);
      if (!m.has(color)) m.set(color, []);
      m.get(color).push(where);
    };
    for (const path of PAGES) {
      const {charts, problems} = await visit(path);
      assert.deepEqual(problems, [], `${path}: ${problems.join("; ")}`);
      for (const chart of charts) {
        const legendDevice = new Map(); // legend value -> device_id
        for (const m of chart.marks) {
          if (!m.datum?.device_id) continue;
          if (m.datum._device !== undefined) legendDevice.set(String(m.datum._device), m.datum.device_id);
          // a line is its stroke; a point or bar its fill (its stroke when hollow)
          const color = m.type === "line" ? hex(m.stroke) : hex(m.fill) ?? hex(m.stroke);
          note(m.datum.device_id, color, `${path} #${chart.id} ${m.type}`);
        }
        for (const l of chart.legend) if (legendDevice.has(l.value)) note(legendDevice.get(l.value), hex(l.fill) ?? hex(l.stroke), `${path} #${chart.id} legend`);
      }
    }
    assert.ok(seen.size >= 5, `devices drawn: ${[...seen.keys()]}`);
    const describe = (id, colors) => `${id} (build: ${expected?.get(id)}): ${[...colors].map(([c, where]) => `${c} in ${[...new Set(where)].slice(0, 3).join(", ")}`).join(" | ")}`;
    assert.deepEqual([...seen].filter(([, colors]) => colors.size !== 1).map(([id, colors]) => describe(id, colors)), [], "one colour per device");
    assert.ok(expected, "the build wrote data/pages/device_colors.json");
    assert.deepEqual([...seen].filter(([id, colors]) => [...colors.keys()][0] !== expected.get(id)).map(([id, colors]) => describe(id, colors)), [],
      "each device in the build's colour");
  });
});

describe("tooltips", () => {
  // A number with a fractional part has at most 4 significant digits (21,614.12862 is too many).
  const tooPrecise = (text) => {
    const m = /^-?([\d,]*\.\d+)(\s|$)/.exec(text.trim());
    return Boolean(m) && m[1].replace(/[,.]/g, "").replace(/^0+/, "").length > 4;
  };
  for (const path of PAGES) {
    test(`${path}: every tooltip states only known values, at sensible precision`, async () => {
      const {charts} = await visit(path);
      const tips = charts.flatMap((c) => c.marks.filter((m) => m.tooltip !== null).map((m) => [c.id, m.tooltip]));
      assert.ok(tips.length > 0, "the charts carry tooltips");
      const bad = [];
      for (const [id, tip] of tips) {
        const entries = typeof tip === "object" ? Object.entries(tip) : [["", tip]];
        for (const [k, v] of entries) {
          const text = String(v);
          if (/\b(null|undefined|NaN)\b/.test(text) || text.trim() === "") bad.push(`#${id} ${k}: ${text}`);
          else if (tooPrecise(text)) bad.push(`#${id} ${k}: ${text} (too many digits)`);
        }
      }
      assert.deepEqual([...new Set(bad)].slice(0, 20), [], `${new Set(bad).size} bad tooltip values`);
    });
  }
});

describe("lines and knees", () => {
  // The levels each study or host measured (as the pages see them: "study: <id>" or "host: <id>").
  const ladders = (rows) => new Map(rows.map((r) => [r.setup, r.levels.map(Number).sort((a, b) => a - b)]));
  const tpccLadders = () => ladders(sql(`select case when study_id is not null then 'study: ' || study_id else 'host: ' || host_id end as setup,
    list(distinct connections) as levels from marts.fct_tpcc_results where connections is not null group by 1`));
  const fioLadders = () => ladders(sql(`select setup, list(distinct outstanding_ios) as levels from (
      select case when study_id is not null then 'study: ' || study_id else 'host: ' || host_id end as setup, outstanding_ios from marts.fct_published_io_results
      union all select 'host: ' || host_id, outstanding_ios from marts.fct_fio_results) where outstanding_ios is not null group by 1`));

  /** Lines of a chart that join two levels some other level of their study or host lies between. */
  function invented(chart, field, ladder) {
    const out = [];
    for (const line of chart.lines) {
      const levels = [...new Set(line.map((d) => d?.[field]).filter((v) => typeof v === "number"))].sort((a, b) => a - b);
      const steps = ladder.get(line[0]?.setup) ?? levels;
      for (let i = 1; i < levels.length; i++) {
        if (steps.indexOf(levels[i]) !== steps.indexOf(levels[i - 1]) + 1) out.push(`${line[0]?.device_id} ${line[0]?.setup}: ${levels[i - 1]} -> ${levels[i]}`);
      }
    }
    return out;
  }

  test("/fio: no line joins outstanding-IO levels its study or host measured others between (1 and 512)", async () => {
    const {charts} = await visit("/fio");
    const iops = charts.find((c) => c.id === "chart-iops");
    assert.ok(iops.marks.some((m) => m.datum?.outstanding_ios === 512), "the published figures at 512 outstanding IOs are drawn");
    assert.ok(iops.lines.some((l) => l.length >= 3), "the measured sweep is a line");
    const lad = fioLadders();
    for (const id of ["chart-iops", "chart-mibs"]) assert.deepEqual(invented(charts.find((c) => c.id === id), "outstanding_ios", lad), [], id);
  });

  test("/ and /tpcc: no line joins connection levels its study or host measured others between", async () => {
    const lad = tpccLadders();
    for (const [path, ids] of [["/", ["chart-headline"]], ["/tpcc", ["chart-throughput", "chart-p95", "chart-max", "chart-cpu-busy"]]]) {
      const {charts} = await visit(path);
      for (const id of ids) {
        const chart = charts.find((c) => c.id === id);
        assert.ok(chart?.lines.length, `${path} #${id} draws lines`);
        assert.deepEqual(invented(chart, "connections", lad), [], `${path} #${id}`);
      }
    }
  });

  test("/tpcc rings the knees of fct_tpcc_sweep_knees; /fio rings the measured sweep's knee", async () => {
    const knees = sql(`select device_id, db_config_id, cast(knee_load as integer) as knee from marts.fct_tpcc_sweep_knees
      where sweep_variable = 'connections' and is_knee_reached`);
    const key = (d) => `${d.device_id}|${d.db_config_id}|${d.connections ?? d.knee}`;
    const expected = new Set(knees.map(key));
    const {charts} = await visit("/tpcc");
    const rings = charts.find((c) => c.id === "chart-throughput").marks.filter((m) => m.type === "symbol" && m.size >= 300);
    assert.ok(rings.length > 0, "knees are ringed");
    assert.deepEqual(rings.map((m) => key(m.datum)).filter((k) => !expected.has(k)), [], "every ring is a knee of the mart");
    assert.deepEqual([...expected].filter((k) => !rings.some((m) => key(m.datum) === k)), [], "every knee of the mart is ringed");
    const fio = (await visit("/fio")).charts.find((c) => c.id === "chart-iops");
    assert.ok(fio.marks.some((m) => m.type === "symbol" && m.size >= 300), "the fio sweep's knee is ringed");
  });
});

describe("legends", () => {
  for (const [path, viewport] of [["/", DESKTOP], ["/tpcc", DESKTOP], ["/fio", DESKTOP], ["/tpcc", PHONE], ["/fio", PHONE]]) {
    test(`${path} at ${viewport.width} px: legends list only what is drawn; legend and axis labels untruncated; charts inside their cards`, async () => {
      const {charts} = await visit(path, viewport);
      const bad = [];
      for (const c of charts) {
        c.legend.forEach((l, i) => c.legendValuesDrawn[i] || bad.push(`#${c.id}: legend entry "${l.value}" is not drawn`));
        for (const label of c.labels) if (/…$/.test(label)) bad.push(`#${c.id}: truncated "${label}"`);
        if (c.right > c.cardRight + 1) bad.push(`#${c.id}: chart overflows its card by ${Math.round(c.right - c.cardRight)} px`);
      }
      assert.deepEqual(bad, []);
    });
  }
});

describe("views", () => {
  test("charts coming into view together are drawn one after another, in page order, not interleaved", async () => {
    // a window tall enough that six charts of /fio come into view at once
    const {page, problems, close} = await openPage(browser, server.url, "/fio", {ready: READY["/fio"], viewport: {width: 1400, height: 2400}});
    try {
      await page.waitForFunction(() => document.querySelectorAll(".vega-chart[data-rendered]").length >= 4, null, TIMER_POLLING);
      // in page order: each chart began after the one above it
      const starts = await page.$$eval(".vega-chart[data-rendered][data-draw-started-at]", (charts) =>
        charts.map((c) => [c.closest("[id]")?.id, Number(c.dataset.drawStartedAt)]));
      for (let i = 1; i < starts.length; i++) assert.ok(starts[i][1] > starts[i - 1][1], `${starts[i][0]} began before ${starts[i - 1][0]} above it`);
      const spans = await page.$$eval(".vega-chart[data-rendered][data-draw-started-at]", (charts) =>
        charts.map((c) => [Number(c.dataset.drawStartedAt), Number(c.dataset.renderedAt)]).sort((a, b) => a[0] - b[0]));
      assert.ok(spans.length >= 4, `${spans.length} charts drawn`);
      for (let i = 1; i < spans.length; i++) {
        assert.ok(spans[i][0] >= spans[i - 1][1], `chart ${i} began at ${spans[i][0]} before chart ${i - 1} was drawn at ${spans[i - 1][1]}`);
      }
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  test("/fio opens on a view where every chart has data", async () => {
    const {charts, problems} = await visit("/fio");
    assert.deepEqual(problems, []);
    for (const id of ["chart-iops", "chart-mibs", "chart-lat-mean", "chart-lat-p50", "chart-lat-p99", "chart-lat-p99_9", "chart-layouts", "chart-histogram"]) {
      const chart = charts.find((c) => c.id === id);
      assert.ok(chart && chart.marks.some((m) => m.type === "symbol" || m.type === "rect"), `#${id} draws data`);
    }
  });

  test("no Vega warning on /, /tpcc, /fio (default views, phone width, other axes and directions)", async () => {
    const found = [];
    for (const [path, viewport] of [...PAGES.map((p) => [p, DESKTOP]), ...PAGES.map((p) => [p, PHONE]),
      ["/tpcc?x=buffer_pool_gib", DESKTOP], ["/tpcc?setup=study%3A+micron_2017_sqlserver_nvme", DESKTOP], ["/fio?dir=read&profile=(all)", DESKTOP]]) {
      const {warnings, problems} = await visit(path, viewport);
      assert.deepEqual(problems, [], `${path}: ${problems.join("; ")}`);
      for (const w of warnings) found.push(`${path} @${viewport.width}: ${w}`);
    }
    assert.deepEqual(found, []);
  });

  test("at 390 px every chart of /, /tpcc and /fio is at least 300 px wide and no page scrolls sideways", async () => {
    const narrow = [];
    for (const path of PAGES) {
      const {charts, layout} = await visit(path, PHONE);
      assert.ok(charts.length > 0, `${path} draws charts`);
      assert.ok(layout.scrollWidth <= layout.innerWidth, `${path} is ${layout.scrollWidth} px wide at ${layout.innerWidth}`);
      for (const c of charts) if (c.width < 300) narrow.push(`${path} #${c.id}: ${c.width} px`);
    }
    assert.deepEqual(narrow, []);
  });
});

describe("state in the URL", () => {
  /** Open a page and run fn(page); then require it clean. */
  async function onPage(path, ready, fn) {
    const {page, problems, close} = await openPage(browser, server.url, path, {ready, timeout: 30000});
    try {
      await fn(page);
      assert.deepEqual(problems, [], problems.join("; "));
    } finally {
      await close();
    }
  }
  const selectIn = (page, label) => page.locator("form", {hasText: label}).locator("select").first();
  // Observable Inputs' options carry indices as values: a select is read and set by its text.
  const chosen = (page, label) => selectIn(page, label).locator("option:checked").innerText();
  const drawnAt = (page, slot) => page.locator(`${slot} .vega-chart`).first().getAttribute("data-rendered-at");
  const untilRedrawn = (page, slot, before) => page.waitForFunction(([sel, prev]) => {
    const el = document.querySelector(`${sel} .vega-chart`);
    el?.scrollIntoView({block: "center"});
    return Boolean(el?.dataset.rendered && el.dataset.renderedAt !== prev);
  }, [slot, before], {timeout: 15000, polling: 100});
  const throughputConnections = (page) => page.evaluate(() => {
    const c = document.querySelector("#chart-throughput .vega-chart");
    const out = [];
    const visit = (mark) => {
      for (const item of mark.items ?? []) {
        if (mark.role === "mark" && mark.marktype === "symbol" && item.datum) out.push(item.datum.connections);
        if (mark.marktype === "group") for (const child of item.items ?? []) visit(child);
      }
    };
    visit(c.view.scenegraph().root);
    return out;
  });

  test("a pinned connections level round-trips through the link, and the quotients follow it", async () => {
    let url;
    let points;
    await onPage("/tpcc?conn=100", "#chart-throughput .vega-chart[data-rendered]", async (page) => {
      assert.equal(await chosen(page, "Connections"), "100");
      const at100 = await throughputConnections(page);
      assert.ok(at100.length > 0 && at100.every((c) => c === 100), `points at ${[...new Set(at100)]}`);
      assert.match(await page.locator("#quotient-scope-text").innerText(), /at 100 connections/);
      const before = await drawnAt(page, "#chart-throughput");
      await selectIn(page, "Connections").selectOption({label: "150"});
      await untilRedrawn(page, "#chart-throughput", before);
      url = new URL(page.url());
      assert.equal(url.searchParams.get("conn"), "150");
      await page.waitForFunction(() => /at 150 connections/.test(document.querySelector("#quotient-scope-text")?.textContent ?? ""), null, TIMER_POLLING);
      points = await throughputConnections(page);
      assert.ok(points.length > 0 && points.every((c) => c === 150));
    });
    await onPage(url.pathname + url.search, "#chart-throughput .vega-chart[data-rendered]", async (page) => {
      assert.equal(await chosen(page, "Connections"), "150");
      assert.deepEqual(await throughputConnections(page), points);
      assert.match(await page.locator("#quotient-scope-text").innerText(), /at 150 connections/);
    });
  });

  test("the /tpcc quotient at 100 connections of the Samsung study is the mart's quotient", async () => {
    const mart = sql(`select quotient, db_config_id from marts.fct_device_quotients where result_domain = 'tpcc'
      and metric = 'new_order_tpm' and study_id = 'samsung_2016_nvme_oltp' and connections = 100
      and device_a_id = 'samsung_pm1725' and device_b_id = 'samsung_850pro'`);
    assert.equal(mart.length, 1, `the mart pairs the two devices once at 100 connections: ${JSON.stringify(mart)}`);
    const path = `/tpcc?${new URLSearchParams([["setup", "study: samsung_2016_nvme_oltp"], ["ql", "100"]])}`;
    await onPage(path, "#chart-throughput .vega-chart", async (page) => {
      await page.waitForFunction(() => {
        const el = document.querySelector("#chart-quotients .vega-chart");
        el?.scrollIntoView({block: "center"});
        return Boolean(el?.dataset.rendered && el.view);
      }, null, {timeout: 15000, polling: 100});
      const scope = await page.locator("#quotient-scope-text").innerText();
      assert.match(scope, /at 100 connections/);
      assert.match(scope, /samsung_2016_nvme_oltp/);
      const cells = await page.evaluate(() => {
        const out = [];
        const visit = (mark) => {
          for (const item of mark.items ?? []) {
            if (mark.role === "mark" && mark.marktype === "rect" && item.datum) out.push(item.datum);
            if (mark.marktype === "group") for (const child of item.items ?? []) visit(child);
          }
        };
        visit(document.querySelector("#chart-quotients .vega-chart").view.scenegraph().root);
        return out.map((d) => ({a: d.numerator, b: d.denominator, q: d.geomean, levels: d.levels ?? null}));
      });
      const cell = cells.find((c) => /PM1725/.test(c.a) && /850 PRO/.test(c.b));
      assert.ok(cell, `a PM1725 / 850 PRO cell: ${JSON.stringify(cells.map((c) => [c.a, c.b]))}`);
      assert.deepEqual(cell.levels, [100]);
      assert.ok(Math.abs(cell.q - mart[0].quotient) <= 1e-12 * mart[0].quotient, `page ${cell.q}, mart ${mart[0].quotient}`);
    });
  });

  test("the log / linear switch: log by default past 100x, the choice kept in the link", async () => {
    let url;
    await onPage("/tpcc", "#chart-throughput .vega-chart[data-rendered]", async (page) => {
      const chart = page.locator("#chart-throughput .vega-chart").first();
      assert.equal(await chart.getAttribute("data-y-scale"), "log", "HDD and NVMe throughput differ by more than 100x");
      const before = await drawnAt(page, "#chart-throughput");
      await page.locator("#chart-throughput .chart-scale input[value=linear]").check();
      await untilRedrawn(page, "#chart-throughput", before);
      assert.equal(await chart.getAttribute("data-y-scale"), "linear");
      assert.equal(await page.evaluate(() => document.querySelector("#chart-throughput .vega-chart").view.scale("y").type), "linear");
      url = new URL(page.url());
      assert.equal(url.searchParams.get("ys_new_order_tpm"), "linear");
    });
    await onPage(url.pathname + url.search, "#chart-throughput .vega-chart[data-rendered]", async (page) => {
      assert.equal(await page.locator("#chart-throughput .vega-chart").first().getAttribute("data-y-scale"), "linear");
      assert.ok(await page.locator("#chart-throughput .chart-scale input[value=linear]").isChecked());
    });
  });
});
