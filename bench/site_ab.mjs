// Two builds of the site, page by page, in one run: the first chart of each page (ms after
// navigation, as bench/site_budget.mjs reads it) on build A and build B, loads interleaved
// (A, B, A, B ...) so that a machine's drift hits both alike, cache off; the median of each and
// their ratio B / A. For a change to the pages measured on the same data. A run page works too
// (PAGES='/runs/run?id=<run id>'): its first chart is brought into view when it is created.
//
//   DISTS=<dist A>,<dist B> [PAGES=/,/fio,/compare,/tpcc] [ROUNDS=5] node bench/site_ab.mjs
//
// Prints JSON: per page the medians, the ratio and every load.
import {firstChartDrawnAt, launchBrowser, startServer} from "../tests/browser/harness.mjs";

const dists = (process.env.DISTS ?? "").split(",").filter(Boolean);
if (dists.length !== 2) throw new Error("DISTS=<dist A>,<dist B>: two built sites");
const pages = (process.env.PAGES ?? "/,/fio,/compare,/tpcc").split(",");
const rounds = Number(process.env.ROUNDS ?? 5);
const servers = await Promise.all(dists.map((d) => startServer(d)));
const browser = await launchBrowser();
const loads = new Map(pages.map((p) => [p, [[], []]]));
// In the page before its own scripts: a first chart placed below the window (a run page's come
// after its results) is brought into view as soon as it exists; charts draw only near the view.
const INIT = `new MutationObserver((_, o) => { const c = document.querySelector(".vega-chart"); if (c) {
  if (c.getBoundingClientRect().top > innerHeight) c.scrollIntoView({block: "center"}); o.disconnect(); } })
  .observe(document, {childList: true, subtree: true});`;
try {
  for (let k = 0; k < rounds; k++) for (const path of pages) for (const j of [0, 1]) {
    const context = await browser.newContext({viewport: {width: 1280, height: 900}});
    await context.addInitScript(INIT);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", {cacheDisabled: true});
    await page.goto(new URL(path, servers[j].url).href, {waitUntil: "load"});
    await page.waitForSelector(".vega-chart[data-rendered]", {timeout: 60000});
    loads.get(path)[j].push(Math.round(await firstChartDrawnAt(page)));
    await context.close();
  }
} finally {
  await browser.close();
  for (const s of servers) s.stop();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(JSON.stringify({dists, rounds, pages: pages.map((path) => {
  const [a, b] = loads.get(path);
  return {page: path, a_ms: median(a), b_ms: median(b), ratio: Number((median(b) / median(a)).toFixed(2)), a, b};
})}, null, 1));
