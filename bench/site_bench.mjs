// Site timings in real Chromium (the browser-test harness): for each page, time to the load
// event and to the first rendered chart, the JS heap, the bytes fetched, and how long the page
// takes to settle after one filter change. Prints one JSON line.
//
//   node bench/site_bench.mjs <dist> [/ /tpcc /fio ...]
//
// "first chart" = performance.now() (ms since navigation start) when the first
// .vega-chart[data-rendered] (or an explicit empty-chart note) is in the page.
// "filter settled" = from changing the first <select> of the page's .controls (to its second
// option) to the last DOM mutation in the page, once 500 ms pass without any mutation.
import {launchBrowser, startServer} from "../tests/browser/harness.mjs";

const [dist, ...paths] = process.argv.slice(2);
if (!dist) {
  console.error("usage: node bench/site_bench.mjs <dist> [paths...]");
  process.exit(2);
}
const PAGES = paths.length ? paths : ["/", "/tpcc", "/fio", "/compare", "/runs/"];
const CHART = ".vega-chart[data-rendered], .vega-chart[data-empty], .card .big";
const TIMEOUT = 60000;

async function measurePage(browser, baseUrl, path) {
  const context = await browser.newContext({viewport: {width: 1280, height: 900}});
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`console error: ${m.text()}`));
  const cdp = await context.newCDPSession(page);
  await cdp.send("Performance.enable");
  const result = {path, problems};
  try {
    await page.goto(new URL(path, baseUrl).href, {waitUntil: "load", timeout: TIMEOUT});
    try {
      await page.waitForSelector(CHART, {timeout: TIMEOUT});
      result.first_chart_ms = Math.round(await page.evaluate(() => performance.now()));
    } catch {
      result.first_chart_ms = null;
    }
    const nav = await page.evaluate(() => {
      const n = performance.getEntriesByType("navigation")[0];
      const res = performance.getEntriesByType("resource");
      const bytes = res.reduce((s, r) => s + (r.transferSize || r.encodedBodySize || 0), 0) + (n?.transferSize || 0);
      return {load: n ? n.loadEventEnd : null, dcl: n ? n.domContentLoadedEventEnd : null, bytes, requests: res.length + 1};
    });
    result.load_ms = nav.load == null ? null : Math.round(nav.load);
    result.dom_content_loaded_ms = nav.dcl == null ? null : Math.round(nav.dcl);
    result.transfer_kib = Math.round(nav.bytes / 1024);
    result.requests = nav.requests;
    await page.waitForTimeout(500);
    result.charts = await page.locator(".vega-chart[data-rendered]").count();
    result.filter = await page.evaluate(async () => {
      const select = [...document.querySelectorAll(".controls select, main select")].find((s) => s.options.length > 1);
      if (!select) return null;
      const label = select.closest("form, label, div")?.querySelector("label")?.textContent?.trim() || select.name || "select";
      const value = select.options[1].value;
      return await new Promise((resolve) => {
        const t0 = performance.now();
        let last = t0;
        const observer = new MutationObserver(() => (last = performance.now()));
        observer.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
        select.value = value;
        select.dispatchEvent(new Event("input", {bubbles: true}));
        select.dispatchEvent(new Event("change", {bubbles: true}));
        const check = () => {
          const now = performance.now();
          if (now - last > 500 || now - t0 > 20000) {
            observer.disconnect();
            resolve({control: label.slice(0, 40), option: select.options[1].text.slice(0, 40), settled_ms: Math.round(last - t0)});
          } else setTimeout(check, 25);
        };
        setTimeout(check, 25);
      });
    });
    const metrics = Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));
    result.heap_used_mib = Math.round((metrics.JSHeapUsedSize / 2 ** 20) * 10) / 10;
    result.heap_total_mib = Math.round((metrics.JSHeapTotalSize / 2 ** 20) * 10) / 10;
    result.dom_nodes = metrics.Nodes;
  } catch (error) {
    result.error = String(error.message || error).split("\n")[0];
  } finally {
    await context.close();
  }
  return result;
}

const browser = await launchBrowser();
const server = await startServer(dist);
const pages = [];
try {
  for (const path of PAGES) pages.push(await measurePage(browser, server.url, path));
} finally {
  await browser.close();
  server.stop();
}
console.log(JSON.stringify({dist, pages}));
