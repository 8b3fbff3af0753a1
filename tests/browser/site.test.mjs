// Every page of the built site loads in real Chromium with no console error, no page error,
// no failed request and no request to another host; chart pages render their charts.
import assert from "node:assert/strict";
import {readdirSync} from "node:fs";
import {join} from "node:path";
import {after, before, describe, test} from "node:test";
import {ROOT, launchBrowser, openPage, screenshot, startServer} from "./harness.mjs";

const DIST = join(ROOT, "dist");
// Which element proves a page finished drawing. A page not listed only has to load cleanly.
const READY = {
  "/": ".card .big",
  "/fio": ".vega-chart[data-rendered], .vega-chart .chart-empty"
};

function builtPages() {
  const pages = [];
  const walk = (dir, prefix) => {
    for (const entry of readdirSync(dir, {withFileTypes: true})) {
      if (entry.name.startsWith("_")) continue;
      if (entry.isDirectory()) walk(join(dir, entry.name), `${prefix}${entry.name}/`);
      else if (entry.name.endsWith(".html") && entry.name !== "404.html") {
        const name = entry.name.replace(/\.html$/, "");
        pages.push(name === "index" ? (prefix || "/") : `${prefix}${name}`);
      }
    }
  };
  walk(DIST, "/");
  return pages.sort();
}

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

describe("every built page", () => {
  const pages = builtPages();
  test("the site has pages", () => assert.ok(pages.length >= 2, `pages: ${pages}`));
  for (const path of pages) {
    test(`${path} loads cleanly`, async () => {
      const {page, problems, close} = await openPage(browser, server.url, path, {ready: READY[path]});
      await screenshot(page, path === "/" ? "index" : path.slice(1).replaceAll("/", "_"));
      await close();
      assert.deepEqual(problems, []);
    });
  }
});

describe("fio page", () => {
  test("draws the IOPS chart from the warehouse with one point per result", async () => {
    const {page, problems, close} = await openPage(browser, server.url, "/fio", {ready: ".vega-chart[data-rendered]"});
    const points = await page.locator(".vega-chart").first().locator("path.mark-symbol, g.mark-symbol path").count();
    await close();
    assert.deepEqual(problems, []);
    assert.ok(points > 0, "the chart has no points");
  });
});
