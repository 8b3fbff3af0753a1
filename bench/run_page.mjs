// The run page against `iopscope serve` in Chromium: how long until its results are shown and its
// first chart is drawn, and what it fetched of the marts' Parquet files (requests, bytes, file
// sizes). Usage: node bench/run_page.mjs [run id ...] (default: the run with the most CPU samples
// and a fio run with histograms); the site is $IOPSCOPE_DIST or dist/. Prints JSON, one object
// per run (median of `--loads N` fresh loads, default 3, cache off).
import {statSync} from "node:fs";
import {join} from "node:path";
import {DIST, firstChartDrawnAt, launchBrowser, martRows, openPage, startServer} from "../tests/browser/harness.mjs";

const args = process.argv.slice(2);
const loadsAt = args.indexOf("--loads");
const LOADS = loadsAt >= 0 ? Number(args.splice(loadsAt, 2)[1]) : 3;

async function mostRowsRun(mart) {
  const counts = new Map();
  for (const r of await martRows(mart).catch(() => [])) counts.set(r.run_id, (counts.get(r.run_id) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}
const runs = args.length ? args : [await mostRowsRun("fct_cpu_samples"), await mostRowsRun("fct_fio_histograms")].filter(Boolean);

// In the page before its own scripts: note when the results appear, and bring the first chart
// into view as soon as it exists (charts draw when near the viewport).
const INIT = `new MutationObserver((_, o) => { if (document.getElementById("run-results")) { window.__resultsAt = performance.now(); o.disconnect(); } })
  .observe(document, {childList: true, subtree: true});
new MutationObserver((_, o) => { const c = document.querySelector(".vega-chart"); if (c) { c.scrollIntoView({block: "center"}); o.disconnect(); } })
  .observe(document, {childList: true, subtree: true});`;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const browser = await launchBrowser();
const server = await startServer(DIST);
const out = [];
try {
  for (const runId of runs) {
    const loads = [];
    for (let i = 0; i < LOADS; i++) {
      const {page, problems, close} = await openPage(browser, server.url, `/runs/run?${new URLSearchParams([["id", runId]])}`,
        {ready: "#run-results", init: INIT, timeout: 60000});
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Network.setCacheDisabled", {cacheDisabled: true});
      await page.waitForSelector(".vega-chart[data-rendered]", {timeout: 60000}).catch(() => problems.push("no chart drawn"));
      await page.waitForLoadState("networkidle");
      const firstChartMs = await firstChartDrawnAt(page);
      const timing = await page.evaluate(() => ({
        resultsMs: window.__resultsAt ?? null,
        // the Parquet files' ranges, parts included (not the index, data/marts/run_marts.json, a hashed _file/ copy)
        fetched: performance.getEntriesByType("resource").filter((e) => /\/data\/marts\/.+\.parquet$/.test(e.name) && !/\/_file\//.test(e.name))
          .map((e) => ({file: decodeURIComponent(e.name.replace(/^.*\/data\/marts\//, "")), bytes: e.encodedBodySize})),
        index: performance.getEntriesByType("resource").filter((e) => /run_marts[^/]*\.json$/.test(e.name))
          .map((e) => ({bytes: e.encodedBodySize, ms: Math.round(e.responseEnd - e.startTime)}))
      }));
      loads.push({...timing, firstChartMs, problems});
      await close();
    }
    const files = {};
    for (const f of loads[0].fetched) {
      files[f.file] ??= {requests: 0, bytes: 0, size: statSync(join(DIST, "data", "marts", f.file)).size};
      files[f.file].requests += 1;
      files[f.file].bytes += f.bytes;
    }
    const sum = (k) => Object.values(files).reduce((s, f) => s + f[k], 0);
    out.push({run_id: runId, loads: LOADS, results_shown_ms: Math.round(median(loads.map((l) => l.resultsMs))),
      first_chart_ms: Math.round(median(loads.map((l) => l.firstChartMs))), requests: sum("requests"),
      bytes_fetched: sum("bytes"), bytes_of_files_read: sum("size"), index_bytes: loads[0].index.reduce((s, e) => s + e.bytes, 0),
      files, problems: loads.flatMap((l) => l.problems)});
  }
} finally {
  await browser.close();
  server.stop();
}
console.log(JSON.stringify(out, null, 1));
