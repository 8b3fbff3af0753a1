// Shared browser-test harness: real Debian Chromium driven by playwright-core, the real
// `iopscope serve` serving dist/. A page "passes" only with no console error, no page
// error, no failed request and no request to any host but the local server.
import {spawn} from "node:child_process";
import {existsSync, mkdirSync, readdirSync} from "node:fs";
import {dirname, join, resolve} from "node:path";
import {fileURLToPath} from "node:url";
import {chromium} from "playwright-core";
import {asyncBufferFromFile, parquetReadObjects} from "hyparquet";
import {decompress as zstdDecompress} from "fzstd";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const ARTIFACTS = join(ROOT, "tests", "artifacts", "screenshots");

const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
// Without the background-networking flags Chromium phones home at start, which this
// offline machine (and many labs) refuse, and which would count as foreign requests.
const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--disable-dev-shm-usage"
];

/**
 * waitForFunction's default polls on animation frames, which a headless renderer now and then
 * stops producing for many seconds (CI saw 25 s); a timer keeps polling through such a stall.
 */
export const TIMER_POLLING = {polling: 100};

/** The built site under test: $IOPSCOPE_DIST (a private build) or dist/. */
export const DIST = process.env.IOPSCOPE_DIST ? resolve(process.env.IOPSCOPE_DIST) : join(ROOT, "dist");

/**
 * The Parquet files of a mart as the build wrote them: dist/data/marts/<name>.parquet, or a big
 * mart's parts, dist/data/marts/<name>/part-<id>.parquet (src/data/_run_parquet.py plan_parts).
 */
export function martFiles(name, dist = DIST) {
  const whole = join(dist, "data", "marts", `${name}.parquet`);
  if (existsSync(whole)) return [whole];
  const folder = join(dist, "data", "marts", name);
  return existsSync(folder) ? readdirSync(folder).filter((n) => n.endsWith(".parquet")).sort().map((n) => join(folder, n)) : [whole];
}

/** Every row of a mart as the build wrote it (its Parquet file or parts), as objects. */
export async function martRows(name, dist = DIST) {
  const compressors = {ZSTD: (input, size) => zstdDecompress(input, new Uint8Array(size))};
  const rows = [];
  // a loop, not push(...rows): spreading a fleet-sized mart overflows the call stack
  for (const path of martFiles(name, dist)) for (const row of await parquetReadObjects({file: await asyncBufferFromFile(path), compressors})) rows.push(row);
  return rows;
}

/** Start `iopscope serve` on a free port for `dir`; resolves to {url, stop}. */
export function startServer(dir = DIST) {
  const python = existsSync(join(ROOT, ".venv/bin/iopscope")) ? join(ROOT, ".venv/bin/iopscope") : "iopscope";
  const child = spawn(python, ["serve", "--port", "0", "--dir", dir], {cwd: ROOT, stdio: ["ignore", "pipe", "pipe"]});
  return new Promise((resolvePromise, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 15000);
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = out.match(/^(http:\/\/127\.0\.0\.1:\d+\/)$/m);
      if (match) {
        clearTimeout(timer);
        resolvePromise({url: match[1], stop: () => child.kill("SIGTERM")});
      }
    });
    child.stderr.on("data", (chunk) => (err += chunk));
    child.on("exit", (code) => reject(new Error(`server exited (${code}): ${err}`)));
  });
}

export async function launchBrowser() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} not found: install Debian's chromium (make test does when root)`);
  }
  return chromium.launch({executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true});
}

/**
 * Open `path` on the local server and record every problem. Returns {page, problems, warnings, close}.
 * `ready` is a selector that must appear (e.g. a rendered chart) before the check ends.
 * `viewport`: {width, height} of the browser window (default 1280 x 900; a phone is 390 wide).
 * `warnings`: the console's warning messages (Vega's among them), which are not problems by
 * themselves; a test that wants none asserts on them.
 */
export async function openPage(browser, baseUrl, path, {ready = null, timeout = 15000, init = null, viewport = {width: 1280, height: 900}} = {}) {
  const context = await browser.newContext({viewport});
  // `init`: a script run in the page before its own (e.g. to take a browser feature away)
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  const problems = [];
  const warnings = [];
  const origin = new URL(baseUrl).origin;
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console error: ${msg.text()}`);
    if (msg.type() === "warning") warnings.push(msg.text());
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  // alert()/confirm()/prompt() never belong on these pages (and would mean injected script ran).
  page.on("dialog", (dialog) => {
    problems.push(`dialog: ${dialog.type()} ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
  page.on("requestfailed", (req) => {
    if (new URL(req.url()).origin === origin) problems.push(`failed request: ${req.url()} (${req.failure()?.errorText})`);
  });
  page.on("response", (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
  });
  // Requests to any other host are recorded and aborted before they leave the browser.
  await context.route("**/*", (route) => {
    const url = route.request().url();
    // (a request still in flight when the page closes cannot go on, and need not)
    if (url.startsWith("data:") || url.startsWith("blob:") || new URL(url).origin === origin) {
      return route.continue().catch(() => {});
    }
    problems.push(`foreign request: ${url}`);
    return route.abort("blockedbyclient").catch(() => {});
  });
  await page.goto(new URL(path, baseUrl).href, {waitUntil: "load", timeout});
  if (ready) {
    try {
      await page.waitForSelector(ready, {timeout});
    } catch {
      problems.push(`never became ready: ${ready} did not appear within ${timeout} ms`);
    }
  }
  // Let late module errors (Framework runs cells asynchronously) surface.
  await page.waitForTimeout(300);
  // Framework shows a cell that failed to compile (or threw) in the page itself, without
  // always logging to the console: count those as problems too.
  for (const text of await page.locator(".observablehq--error").allInnerTexts()) {
    problems.push(`cell error: ${text.slice(0, 300)}`);
  }
  return {page, problems, warnings, close: () => context.close()};
}

/**
 * Playwright's page.evaluate and setViewportSize have no timeout of their own: a renderer that
 * stops answering (seen once in CI, under load, on a tall page) would hang the whole run. Steps
 * that are not themselves assertions are raced against a clock.
 */
function within(promise, ms, what) {
  // The step that lost the race goes on and may fail later (its page closed): that failure is
  // expected and must not surface as an unhandled rejection, which fails the whole test file.
  promise.catch(() => {});
  let timer;
  const clock = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms); });
  return Promise.race([promise, clock]).finally(() => clearTimeout(timer));
}

export async function screenshot(page, name) {
  // Screenshots are artifacts for reviewers, not assertions: a capture that fails or hangs is
  // skipped with a warning and never fails (or blocks) the test that asked for it.
  try {
    await within(capture(page, name), 45000, `screenshot ${name}`);
  } catch (error) {
    console.warn(`screenshot ${name}: not saved (${error.message.split("\n")[0]})`);
  }
}

async function capture(page, name) {
  mkdirSync(ARTIFACTS, {recursive: true});
  const path = join(ARTIFACTS, `${name}.png`);
  // Headless Chromium's full-page capture now and then never returns on long SVG-heavy pages;
  // a viewport as tall as the page gives the same picture.
  const viewport = page.viewportSize();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  try {
    await page.setViewportSize({width: viewport.width, height: Math.min(Math.max(height, viewport.height), 16000)});
    await page.screenshot({path, timeout: 15000});
  } catch (error) {
    // the full-height capture failed: fall back to the first screen
    await page.setViewportSize(viewport);
    await page.screenshot({path, timeout: 10000});
    console.warn(`screenshot ${name}: full-height capture failed (${error.message.split("\n")[0]}); saved the first screen`);
  } finally {
    await page.setViewportSize(viewport);
  }
}

/**
 * When the page's first chart was drawn (performance.now() in the page), or null when none was:
 * the benchmarks' "first chart". Drawn charts only: a chart slot's "no data" note also carries
 * data-rendered-at, from when it was placed.
 */
export function firstChartDrawnAt(page) {
  return page.evaluate(() => {
    const stamps = [...document.querySelectorAll(".vega-chart[data-rendered][data-rendered-at]")].map((c) => Number(c.dataset.renderedAt));
    return stamps.length ? Math.min(...stamps) : null;
  });
}

/**
 * Charts draw when they come near the viewport: scroll through the whole page, then wait until
 * every chart slot holds a drawn chart or an explanation (none left pending or blank).
 * The time allowed is generous because CI machines are slower than ours and a page's cells may
 * redraw a chart several times while its data arrives; how fast pages draw is measured by
 * bench/site_budget.mjs, not here. A page that does not finish says why (chartDiagnosis).
 */
export async function drawAllCharts(page, {timeout = 30000} = {}) {
  // A page still bringing in part of itself says so with aria-busy (the run page's samples,
  // read once its first chart is drawn): wait for it, so its charts are there to be drawn.
  try {
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), null, {timeout, ...TIMER_POLLING});
  } catch (error) {
    throw new Error(`part of the page still loading (aria-busy) after ${timeout} ms`, {cause: error});
  }
  // (plain timers, not requestAnimationFrame, which a renderer may stop serving; the charts'
  // IntersectionObserver fires on scroll either way)
  await within(page.evaluate(async () => {
    const step = Math.max(200, innerHeight - 100);
    for (let y = 0; y < document.documentElement.scrollHeight; y += step) {
      scrollTo(0, y);
      await new Promise((r) => setTimeout(r, 40));
    }
  }), timeout, "scrolling through the page");
  // Charts created after the scroll passed them (a cell waiting on a fetch) are brought into
  // view one by one until none is left waiting.
  try {
    await page.waitForFunction(() => {
      const waiting = [...document.querySelectorAll(".vega-chart")].filter((c) => !c.dataset.rendered && !c.dataset.empty && !c.dataset.failed);
      waiting[0]?.scrollIntoView({block: "center"});
      return waiting.length === 0;
    }, null, {timeout, polling: 100});
  } catch (error) {
    throw new Error(`charts still not drawn after ${timeout} ms: ${await chartDiagnosis(page)}`, {cause: error});
  }
  await within(page.evaluate(() => scrollTo(0, 0)), timeout, "scrolling back to the top");
}

/**
 * What a page that did not finish drawing looks like: which chart slots wait, where they are,
 * and whether the renderer still produces frames (IntersectionObserver and the Observable
 * runtime both wait on frames; timers do not).
 */
async function chartDiagnosis(page) {
  try {
    return await within(page.evaluate(async () => {
      const frame = await Promise.race([
        new Promise((r) => requestAnimationFrame(() => r("ticks"))),
        new Promise((r) => setTimeout(() => r("no frame within 1 s"), 1000))
      ]);
      const waiting = [...document.querySelectorAll(".vega-chart")].filter((c) => !c.dataset.rendered && !c.dataset.empty && !c.dataset.failed)
        .map((c) => {
          const box = c.getBoundingClientRect();
          return `${c.closest("[id]")?.id ?? "?"} (${c.className}, top ${Math.round(box.top)}, ${Math.round(box.width)}x${Math.round(box.height)})`;
        });
      return `${waiting.length} waiting: ${waiting.join(", ")}; animation frame: ${frame}; ` +
        `visibility ${document.visibilityState}, viewport ${innerWidth}x${innerHeight}, scrollY ${Math.round(scrollY)}`;
    }), 5000, "diagnosing");
  } catch (error) {
    return `no diagnosis (${error.message.split("\n")[0]})`;
  }
}
