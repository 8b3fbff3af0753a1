// The screenshots of docs/site.md: every page of the site at 1400 px (desktop) and 390 px
// (phone), the first two screens of each, in real Chromium against the built site.
//
//   node tests/browser/screenshots.mjs            (after `iopscope build`; IOPSCOPE_DIST for another build)
//
// Writes docs/screenshots/<page>-<width>.png and fails when a page does not load cleanly or the
// pictures together exceed 8 MB (they live in the repository).
import {mkdirSync, readFileSync, readdirSync, rmSync, statSync} from "node:fs";
import {join} from "node:path";
import config from "../../observablehq.config.js";
import {DIST, ROOT, drawAllCharts, launchBrowser, openPage, startServer} from "./harness.mjs";

const OUT = join(ROOT, "docs", "screenshots");
const WIDTHS = [{name: "1400", viewport: {width: 1400, height: 900}}, {name: "390", viewport: {width: 390, height: 844}}];
const MAX_BYTES = 8 * 1024 * 1024;
const SCREENS = 2; // the first two screens of a page: its controls and its first results

/** The first run of the catalog as the build wrote it (the run page needs a run in its address). */
function firstRun() {
  const dir = join(DIST, "_file", "data");
  const name = readdirSync(dir).find((n) => /^catalog\.[0-9a-f]+\.json$/.test(n));
  const runs = JSON.parse(readFileSync(join(dir, name), "utf-8")).runs ?? [];
  return runs.find((r) => r.source_kind === "measured") ?? runs[0] ?? null;
}

/** [file name, address]: home, every page of the sidebar, a run page and the 404 page. */
function pages() {
  const list = [["home", "/"], ...config.pages.map((p) => [p.path.replace(/^\/|\/$/g, "").replaceAll("/", "-") || "home", p.path])];
  const run = firstRun();
  if (run) list.splice(list.findIndex(([n]) => n === "runs") + 1, 0, ["run", `/runs/run?${new URLSearchParams([["id", run.run_id]])}`]);
  list.push(["not-found", "/no-such-page"]);
  return list;
}

const browser = await launchBrowser();
const server = await startServer(DIST);
rmSync(OUT, {recursive: true, force: true});
mkdirSync(OUT, {recursive: true});
let failed = 0;
let total = 0;
try {
  for (const [name, path] of pages()) {
    for (const {name: width, viewport} of WIDTHS) {
      const {page, problems, close} = await openPage(browser, server.url, path, {ready: "main h1", viewport});
      try {
        await page.waitForTimeout(500);
        await drawAllCharts(page); // every chart drawn or explained, then back to the top
        await page.waitForTimeout(300);
        const file = join(OUT, `${name}-${width}.png`);
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        await page.screenshot({path: file, fullPage: true, clip: {x: 0, y: 0, width: viewport.width, height: Math.min(SCREENS * viewport.height, height)}});
        total += statSync(file).size;
        // the 404 page answers 404 (Chromium logs it); anything else is a problem
        const real = problems.filter((p) => !(name === "not-found" && /404/.test(p)));
        if (real.length) {
          failed += 1;
          console.error(`${path} at ${width} px: ${real.join("; ")}`);
        }
        console.log(`${name}-${width}.png  ${path}`);
      } finally {
        await close();
      }
    }
  }
} finally {
  await browser.close();
  server.stop();
}
console.log(`${(total / 1024 / 1024).toFixed(1)} MB in ${OUT}`);
if (total > MAX_BYTES) {
  console.error(`the screenshots take ${(total / 1024 / 1024).toFixed(1)} MB, over ${MAX_BYTES / 1024 / 1024} MB`);
  failed += 1;
}
process.exit(failed ? 1 : 0);
