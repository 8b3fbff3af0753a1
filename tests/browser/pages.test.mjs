// The site's pages as a buyer uses them, in real Chromium (issue 15, the page half): nothing
// scrolls sideways on a phone, tables never show null/undefined/NaN, headings are in order, a
// keyboard user can skip to the content, unknown addresses get the site's 404 page; /compare
// sorts numbers as numbers, counts load levels as conditions of runs and does not call the
// devices' own differences "conditions"; /runs/ shows results, not descriptions; a run page
// starts with its results table; /configs opens on configurations that have results; home
// offers the four things people come to do.
// The site under test is $IOPSCOPE_DIST (a private build) or dist/.
import assert from "node:assert/strict";
import {readFileSync, readdirSync} from "node:fs";
import {join} from "node:path";
import {after, before, describe, test} from "node:test";
import config from "../../observablehq.config.js";
import {rowsOf} from "../../src/components/data.js";
import {DIST, TIMER_POLLING, drawAllCharts, launchBrowser, martRows, openPage, startServer} from "./harness.mjs";

const PHONE = {width: 390, height: 844};
const DESKTOP = {width: 1400, height: 900};

/** A data file the build wrote under _file/data/<dir>/ (its name carries a content hash). */
function builtFile(dir, name, extension = "json") {
  const folder = join(DIST, "_file", "data", ...dir.split("/"));
  const file = readdirSync(folder).find((n) => new RegExp(`^${name}\\.[0-9a-f]+\\.${extension}$`).test(n));
  assert.ok(file, `${dir}/${name}.${extension} is not in the build`);
  return join(folder, file);
}
const builtData = (dir, name) => JSON.parse(readFileSync(builtFile(dir, name), "utf-8"));
const catalog = () => builtData("", "catalog");
const runPage = (runId) => `/runs/run?${new URLSearchParams([["id", runId]])}`;
/** Two consecutive steps of the bundled fio sweep (same host, device, profile; 1 and 2 outstanding IOs). */
function sweepSteps() {
  const sweep = catalog().runs.map((r) => r.run_id).filter((id) => /-oio\d+$/.test(id)).sort();
  return sweep.length >= 2 ? sweep.slice(0, 2) : null;
}
const runsCompare = ([a, b]) => `/compare?${new URLSearchParams([["mode", "runs"], ["run", a], ["run", b]])}`;

/**
 * Every page of the site: the pages of observablehq.config.js and home, a run page of each source
 * kind, the runs comparison of two sweep steps, and an address that is no page (the 404).
 */
function everyPage() {
  const pages = ["/", ...config.pages.map((p) => p.path)];
  const kinds = new Map();
  for (const r of catalog().runs) if (!kinds.has(r.source_kind)) kinds.set(r.source_kind, runPage(r.run_id));
  const steps = sweepSteps();
  return [...pages, ...kinds.values(), ...(steps ? [runsCompare(steps)] : []), "/no-such-page"];
}
const NOT_FOUND = "/no-such-page";

let browser;
let server;
before(async () => {
  browser = await launchBrowser();
  server = await startServer(DIST);
});
after(async () => {
  await browser?.close();
  server?.stop();
});

/**
 * Open a page, run `fn(page)`, then require a clean page (no console or page error, no failed or
 * foreign request). The 404 page's own answer (status 404, which Chromium logs) is expected.
 */
async function onPage(path, {ready = "main h1", viewport = DESKTOP, notFound = path === NOT_FOUND} = {}, fn) {
  const {page, problems, close} = await openPage(browser, server.url, path, {ready, viewport});
  try {
    await fn(page);
    await page.waitForTimeout(100);
    const expected = (p) => notFound && (p === `HTTP 404: ${new URL(path, server.url).href}` ||
      /^console error: Failed to load resource: the server responded with a status of 404/.test(p));
    assert.deepEqual(problems.filter((p) => !expected(p)), [], `${path}: ${problems.join("; ")}`);
  } finally {
    await close();
  }
}

/** Scroll a chart slot into view until its chart is drawn (charts draw near the viewport). */
async function chartDrawn(page, slot) {
  await page.waitForFunction((sel) => {
    const el = document.querySelector(sel);
    el?.scrollIntoView({block: "center"});
    return Boolean(el?.querySelector(".vega-chart[data-rendered]"));
  }, slot, {timeout: 15000, ...TIMER_POLLING});
}

describe("every page on a phone (390 px)", () => {
  for (const path of everyPage()) {
    test(`${path}: no sideways scrolling, no null/undefined/NaN in a table, headings in order`, async () => {
      await onPage(path, {viewport: PHONE}, async (page) => {
        await page.waitForTimeout(500); // cells that fill tables after their data arrives
        await drawAllCharts(page);
        const layout = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth,
          bodyScrollWidth: document.body.scrollWidth,
          // what sticks out, to say why when it fails
          wide: [...document.querySelectorAll("main *")].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
            .slice(0, 5).map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}.${String(e.className?.baseVal ?? e.className).split(" ")[0]}`)
        }));
        assert.ok(layout.scrollWidth <= layout.clientWidth && layout.bodyScrollWidth <= layout.clientWidth,
          `${path} is ${layout.scrollWidth} px wide at ${layout.clientWidth} px: ${layout.wide.join(", ")}`);
        await page.evaluate(() => scrollTo(1000, 0));
        assert.equal(await page.evaluate(() => scrollX), 0, `${path} scrolls sideways`);

        // (td.prose: documentation text, such as a column description saying when a value is null)
        const cells = await page.locator("main td:not(.prose), main th").allInnerTexts();
        const bad = cells.filter((t) => /\b(null|undefined|NaN)\b/.test(t));
        assert.deepEqual(bad, [], `${path}: table cells showing null/undefined/NaN`);

        // One h1 first, then no level skipped on the way down (h1 -> h3 would be).
        const levels = await page.locator("main :is(h1, h2, h3, h4, h5, h6)").evaluateAll((hs) => hs.map((h) => +h.tagName[1]));
        assert.equal(levels.filter((l) => l === 1).length, 1, `${path}: headings ${levels}`);
        assert.equal(levels[0], 1, `${path}: headings ${levels}`);
        for (let i = 1; i < levels.length; ++i) assert.ok(levels[i] <= levels[i - 1] + 1, `${path}: heading h${levels[i]} after h${levels[i - 1]} (${levels})`);
      });
    });
  }
});

describe("keyboard and addresses", () => {
  test("the first Tab stop is a skip link to the main content; the hidden sidebar toggle is no stop", async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      await onPage("/compare", {ready: "#compare-panel, main .note", viewport}, async (page) => {
        await page.keyboard.press("Tab");
        const first = await page.evaluate(() => ({text: document.activeElement.textContent, cls: document.activeElement.className}));
        assert.match(first.text, /skip to main content/i, `${viewport.width} px: first stop ${JSON.stringify(first)}`);
        assert.ok(await page.locator(".skip-link").isVisible(), "the skip link shows when focused");
        await page.keyboard.press("Enter");
        assert.equal(await page.evaluate(() => document.activeElement.id), "observablehq-main");
        // From the top again: the next stops are links and controls, never the sidebar toggle.
        await page.evaluate(() => document.activeElement.blur());
        const stops = [];
        for (let i = 0; i < 14; ++i) {
          await page.keyboard.press("Tab");
          stops.push(await page.evaluate(() => document.activeElement.id || document.activeElement.tagName));
        }
        assert.ok(!stops.includes("observablehq-sidebar-toggle"), `${viewport.width} px: stops ${stops}`);
      });
    }
  });

  test("an unknown address gets the site's own 404 page", async () => {
    for (const path of [NOT_FOUND, "/runs/2026-11-21-an-old-run-page"]) {
      await onPage(path, {ready: "main h1", notFound: true}, async (page) => {
        const response = await page.request.get(new URL(path, server.url).href);
        assert.equal(response.status(), 404);
        assert.equal(await page.locator("main h1").innerText(), "Page not found");
        assert.match(await page.title(), /Page not found \| iopscope/);
        assert.ok(await page.locator("#observablehq-sidebar a[href]").count() >= 8, "with the site's navigation");
        // its links lead to real pages
        await page.locator("#not-found-links a[href$='runs/']").click();
        await page.waitForSelector("#runs-count");
      });
    }
  });
});

describe("compare page", () => {
  test("numbers are listed and sorted as numbers", async () => {
    await onPage("/compare", {ready: "#compare-table"}, async (page) => {
      // every condition cell listing numbers lists them in numeric order ("5, 12, 100")
      const cells = await page.locator("#differing-conditions td").allInnerTexts();
      const numeric = cells.map((t) => t.split(", ")).filter((parts) => parts.length > 1 && parts.every((p) => /^-?\d+(\.\d+)?$/.test(p)));
      assert.ok(numeric.length > 0, `no numeric list among ${cells.join(" | ")}`);
      for (const parts of numeric) assert.deepEqual(parts.map(Number), parts.map(Number).sort((x, y) => x - y), parts.join(", "));
      // the side-by-side table sorts by A's values as numbers, both ways
      const a = page.locator("#compare-table thead th").filter({hasText: /^A:/}).locator("button");
      const values = async () => (await page.locator("#compare-table tbody tr").evaluateAll((rows) => rows.map((r) => {
        const cell = [...r.cells].find((c) => c.dataset.label?.startsWith("A:"));
        return cell?.textContent.match(/^-?[\d,]+(\.\d+)?/)?.[0] ?? null;
      }))).filter((v) => v !== null).map((v) => Number(v.replaceAll(",", "")));
      // the cell that draws the table runs again as each item input yields its first value: click
      // once it settled (its chart drawn), then read once the clicked header says how it sorts
      // (CI once read a table drawn again under the click: the rows in their first order)
      await chartDrawn(page, "#chart-compare");
      const sortedAs = (direction) => page.locator(`#compare-table thead th[aria-sort=${direction}]`).filter({hasText: /^A:/}).waitFor();
      await a.click(); // a number column sorts largest first, then the other way
      await sortedAs("descending");
      const down = await values();
      assert.ok(down.length > 2);
      assert.deepEqual(down, [...down].sort((x, y) => y - x), "descending");
      await a.click();
      await sortedAs("ascending");
      const up = await values();
      assert.deepEqual(up, [...up].sort((x, y) => x - y), "ascending");
    });
  });

  test("two sweep steps: outstanding IOs count as a condition, and their metrics are put side by side", async (t) => {
    const steps = sweepSteps();
    if (!steps) return t.skip("no measured sweep with several runs");
    await onPage(runsCompare(steps), {ready: "#compare-panel"}, async (page) => {
      const flagged = await page.locator("#differing-conditions tr.cmp-differs").evaluateAll((rows) => rows.map((r) => r.dataset.condition));
      assert.ok(flagged.includes("outstanding_ios"), `flagged: ${flagged}`);
      assert.match(await page.locator("#differing-conditions tr[data-condition=outstanding_ios]").innerText(), /\b1\b[\s\S]*\b2\b/);
      const count = Number((await page.locator("#compare-count").innerText()).match(/^([\d,]+) shared/)[1].replaceAll(",", ""));
      assert.ok(count > 0, "the steps share metrics (IOPS, MiB/s, latencies)");
      await chartDrawn(page, "#chart-compare");
    });
  });

  test("devices: interface, capacity and media are what is compared, not conditions that differ", async () => {
    // the default pair (Samsung 850 PRO, SATA, 512 GB and PM1725, NVMe, 1500 GB in the bundled data)
    await onPage("/compare", {ready: "#compare-panel"}, async (page) => {
      const flagged = await page.locator("#differing-conditions tr.cmp-differs").evaluateAll((rows) => rows.map((r) => r.dataset.condition));
      for (const inherent of ["interface", "capacity", "media", "device", "data_device"]) assert.ok(!flagged.includes(inherent), `flagged: ${flagged}`);
      const facts = await page.locator("#compared-items tbody tr").evaluateAll((rows) => rows.map((r) => r.dataset.fact).filter(Boolean));
      assert.ok(facts.includes("interface") && facts.includes("capacity"), `facts: ${facts}`);
      await chartDrawn(page, "#chart-compare");
    });
  });
  test("devices: the studies' comparisons are the marts' quotients, one orientation, studies by title", async () => {
    const device = "samsung_pm1725";
    // the device's line of the condition quotients' pack (src/data/_device_pages.py), as the index places it
    const index = builtData("pages", "condition_quotients");
    assert.ok(index.exists && index.devices[device], `${device} has condition quotients`);
    const pack = readFileSync(builtFile("pages", "condition_quotients", "jsonl"));
    assert.equal(pack.length, index.pack_bytes);
    const [start, end] = index.devices[device];
    assert.equal(pack[end], 0x0a, "a line ends where the index says");
    const mart = rowsOf(JSON.parse(pack.subarray(start, end).toString("utf-8"))).filter((r) => r.device_id === device &&
      r.varied_condition === "page_size" && r.metric === "new_order_tpm" && r.condition_a === "page_size_kib=4" && r.condition_b === "page_size_kib=16");
    assert.ok(mart.length > 1, "the bundled data holds PM1725 page-size pairs");
    const geomean = Math.exp(mart.reduce((s, r) => s + Math.log(r.quotient), 0) / mart.length);
    await onPage(`/compare?device=${device}&device=samsung_850pro`, {ready: "#condition-quotients"}, async (page) => {
      const rows = await page.locator("#condition-quotients tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.innerText.trim())));
      const row = rows.find((cells) => /PM1725/.test(cells[0]) && cells[1] === "page size: 4 KiB vs 16 KiB" && cells[2] === "New-Order throughput");
      assert.ok(row, `no PM1725 page-size row in ${JSON.stringify(rows.slice(0, 3))}`);
      const shown = Number(row[3].match(/^([\d.]+)×/)[1]);
      assert.ok(Math.abs(shown - geomean) / geomean < 0.005, `shown ${shown}, mart geometric mean ${geomean}`);
      assert.match(row[5], new RegExp(`^${mart.length} pairs`));
      // one orientation only: 16 KiB vs 4 KiB is the same comparison turned over
      assert.ok(!rows.some((cells) => /PM1725/.test(cells[0]) && cells[1] === "page size: 16 KiB vs 4 KiB"));
      // a study by its title, never its id
      for (const cells of rows) assert.ok(!/_/.test(cells[6]) || /^host /.test(cells[6]), `place ${cells[6]}`);
      // the shown devices' lines of the pack, by range, and nothing else of it
      const read = await page.evaluate(() => performance.getEntriesByType("resource")
        .filter((e) => /\/condition_quotients\.[0-9a-f]+\.jsonl$/.test(e.name)).map((e) => e.encodedBodySize));
      const lines = [device, "samsung_850pro"].map((d) => index.devices[d]).filter(Boolean).map(([a, b]) => b - a);
      assert.deepEqual([...read].sort((a, b) => a - b), [...lines].sort((a, b) => a - b));
    });
  });
});

describe("runs", () => {
  test("the list shows headline results, filters, and no run description", async () => {
    // every run's description, from the dim_runs download (the run page reads it by range)
    const dim = await martRows("dim_runs");
    await onPage("/runs/", {ready: "#runs-table"}, async (page) => {
      const headers = await page.locator("#runs-table thead th").allInnerTexts();
      for (const h of ["IOPS", "p99 (ms)", "New-Order tpm"]) assert.ok(headers.some((x) => x.startsWith(h)), `columns: ${headers}`);
      const iops = await page.locator("#runs-table td[data-label=IOPS]").allInnerTexts();
      assert.ok(iops.some((v) => /^\d[\d,]*(\.\d+)?$/.test(v)), "some run has an IOPS figure");
      for (const label of ["Sources", "Tool", "Device", "Host / study", "Search"]) {
        assert.equal(await page.locator("main form", {hasText: label}).count() >= 1, true, `filter ${label}`);
      }
      const text = await page.locator("main").innerText();
      const described = dim.filter((r) => r.description && r.description.length > 40);
      assert.ok(described.length > 0);
      for (const r of described) assert.ok(!text.includes(r.description.slice(0, 40)), `the description of ${r.run_id} is on the list`);
      // sorted by IOPS (a number column), largest first
      await page.locator("#runs-table thead th", {hasText: /^IOPS/}).locator("button").click();
      const sorted = (await page.locator("#runs-table td[data-label=IOPS]").allInnerTexts()).filter((v) => v !== "—").map((v) => Number(v.replaceAll(",", "")));
      assert.deepEqual(sorted, [...sorted].sort((x, y) => y - x));
      assert.match(page.url(), /sort=iops/);
    });
  });

  test("a run page starts with its results table, then the charts", async () => {
    const run = catalog().runs.find((r) => /-oio\d+$/.test(r.run_id)) ?? catalog().runs[0];
    await onPage(runPage(run.run_id), {ready: "#run-title"}, async (page) => {
      await page.waitForSelector("#run-results");
      const order = await page.evaluate(() => {
        const header = document.querySelector(".run-header");
        const after = [];
        for (let e = header.nextElementSibling; e; e = e.nextElementSibling) after.push(e.id || e.tagName);
        return after;
      });
      assert.equal(order[0], "run-results", `after the header: ${order}`);
      const tableFirst = await page.evaluate(() => {
        const table = document.querySelector("#run-results table");
        const chart = document.querySelector(".vega-chart");
        return Boolean(table) && (!chart || Boolean(table.compareDocumentPosition(chart) & Node.DOCUMENT_POSITION_FOLLOWING));
      });
      assert.ok(tableFirst, "a numeric table precedes every chart");
      const numbers = await page.locator("#run-results td.num").allInnerTexts();
      assert.ok(numbers.some((v) => /\d/.test(v)), "the table holds numbers");
    });
  });
});

describe("a measured TPC-C sweep on its run pages", () => {
  test("each step names its sweep's knee and what stopped it, as the knee mart says, and links to the sweep", async (t) => {
    const knees = rowsOf(builtData("pages", "fct_tpcc_sweep_knees"))
      .filter((k) => k.source_kind === "measured" && k.sweep_variable === "connections" && k.is_knee_reached);
    if (!knees.length) return t.skip("no measured TPC-C sweep with a knee in this build");
    const runs = catalog().runs.filter((r) => r.source_kind === "measured" && /-c\d+$/.test(r.run_id));
    assert.ok(runs.length, "measured TPC-C runs are in the catalog");
    // the last step of a sweep: past its knee when the sweep stopped on a plateau
    const last = runs.map((r) => r.run_id).sort().filter((id) => /tpcc-mysql-w1-bp256m/.test(id)).at(-1) ?? runs.at(-1).run_id;
    await onPage(runPage(last), {ready: "#run-sweep"}, async (page) => {
      const rows = await page.locator("#run-sweep tbody tr").evaluateAll((trs) => trs.map((tr) => Object.fromEntries(
        [...tr.cells].map((c) => [c.dataset.label, c.innerText.trim()]))));
      const row = rows.find((r) => /^connections /.test(r.swept));
      assert.ok(row, `no connections sweep in ${JSON.stringify(rows)}`);
      const held = Number(row.held.match(/buffer pool ([\d.]+) GiB/)[1]);
      const mart = knees.find((k) => Math.abs(k.buffer_pool_gib - held) < 1e-9 && row.swept.endsWith(`${k.step_count} steps`));
      assert.ok(mart, `no knee row for buffer pool ${held}`);
      assert.ok(row.knee.startsWith(`${mart.knee_load} connections`), `knee ${row.knee} vs mart ${mart.knee_load}`);
      assert.match(row["stopped by"], new RegExp(`plateau: the step after ${mart.knee_load} connections`));
      assert.match(row["this run"], /past the knee|the knee|before the knee/);
      const href = await page.locator("#run-sweep a.sweep-link").first().getAttribute("href");
      assert.match(href, /tpcc\?.*setup=host.*&bp=/);
      // the sweeps of the run's device, by byte range, not the whole knee list (it grows with the archive)
      const fetched = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name));
      assert.ok(fetched.some((u) => /\/data\/marts\/fct_tpcc_sweep_knees\b/.test(u)), fetched.join("\n"));
      assert.ok(!fetched.some((u) => /\/pages\/fct_tpcc_sweep_knees\b/.test(u)), fetched.join("\n"));
    });
  });
});

describe("configs and home", () => {
  test("/configs opens on configurations that have results", async (t) => {
    const used = new Set(rowsOf(builtData("pages", "tpcc_results")).map((r) => r.db_config_id).filter(Boolean));
    if (used.size < 2) return t.skip("fewer than two configurations have results");
    await onPage("/configs", {ready: "#config-list"}, async (page) => {
      const chosen = await page.locator("main form select").evaluateAll((selects) => selects.map((s) => s.options[s.selectedIndex].textContent));
      const ids = chosen.map((c) => c.replace(/ \(.*\)$/, ""));
      assert.equal(ids.length, 2);
      for (const id of ids) assert.ok(used.has(id), `${id} opens, but no result uses it (chosen: ${chosen})`);
    });
  });

  test("home offers the four things people come to do, and study titles rather than ids", async () => {
    await onPage("/", {ready: "#holdings"}, async (page) => {
      const cards = await page.locator("#tasks a.card").evaluateAll((as) => as.map((a) => [a.getAttribute("href"), a.querySelector("h2, h3")?.textContent]));
      assert.deepEqual(cards.map(([href]) => href), ["./compare", "./sizing", "./sql", "./runs/"]);
      for (const [, title] of cards) assert.ok(title && !/_/.test(title), `card title ${title}`);
      const studies = rowsOf(builtData("pages", "studies"));
      const list = await page.locator("#studies").innerText();
      for (const s of studies) assert.ok(list.includes(s.study_title), `${s.study_title} listed`);
      // one date format, yyyy-mm-dd (yyyy-mm for a study printed with a month only), never as printed ("9/01/2016", "12/17")
      const text = await page.locator("main").innerText();
      assert.deepEqual(text.match(/\b\d{1,2}\/\d{1,2}(\/\d{2,4})?\b/g), null);
      assert.match(list, /\b\d{4}-\d{2}-\d{2}\b/);
    });
  });
});
