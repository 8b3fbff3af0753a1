// The site with its big marts in parts (src/data/_run_parquet.py plan_parts), as a lab's site is
// past ~1 M rows a mart, and its overview pages' members in segments (src/data/_page_members.py),
// as past ~2,000 runs: the bundled data is far below that, so this builds a private copy of the
// site with a part size of 10,000 rows (the latency histograms then come in several parts) and
// segments of 16 rows, runs the run page's and Data page's tests of site.test.mjs against it,
// and compares its overview pages with those of the main build (dist/).
import assert from "node:assert/strict";
import {spawnSync} from "node:child_process";
import {cpSync, existsSync, readFileSync, readdirSync, rmSync} from "node:fs";
import {join} from "node:path";
import {before, test} from "node:test";
import {DIST as MAIN_DIST, ROOT, drawAllCharts, launchBrowser, openPage, startServer} from "./harness.mjs";

const WORK = join(ROOT, "tests", "artifacts", "site-parts");
const DIST = join(WORK, "dist");
const PART_ROWS = "10000";   // under half the latency histograms (28,035 rows): cut in parts whatever the hash picks
const SEGMENT_ROWS = "16";

before(() => {
  rmSync(WORK, {recursive: true, force: true});
  // the site's sources, and the npm bundles the main build made (re-bundling vega and
  // DuckDB-WASM would take a minute), but none of its data
  cpSync(join(ROOT, "src"), join(WORK, "src"), {recursive: true, filter: (path) => !path.includes(join(".observablehq", "cache", "data"))});
  const iopscope = existsSync(join(ROOT, ".venv/bin/iopscope")) ? join(ROOT, ".venv/bin/iopscope") : "iopscope";
  const build = spawnSync(iopscope, ["build", "--skip", "ingest", "--skip", "dbt"], {
    cwd: ROOT, encoding: "utf-8", timeout: 600000,
    env: {...process.env, IOPSCOPE_SITE_ROOT: join(WORK, "src"), IOPSCOPE_DIST: DIST,
      IOPSCOPE_SITE_PART_ROWS: PART_ROWS, IOPSCOPE_SITE_PARTS_DIR: join(WORK, "parts"),
      IOPSCOPE_PAGE_SEGMENT_ROWS: SEGMENT_ROWS, IOPSCOPE_SITE_PAGES_DIR: join(WORK, "pages")}
  });
  assert.equal(build.status, 0, `the site in parts did not build:\n${build.stdout}\n${build.stderr}`);
});

/** The environment for a `node --test` of its own (in a test's child, node reports to the parent runner instead). */
function ownRunner(env) {
  delete env.NODE_TEST_CONTEXT;
  return env;
}

test("the run page and the Data page work with the marts in parts", () => {
  const histograms = join(DIST, "data", "marts", "fct_fio_histograms");
  assert.ok(existsSync(histograms) && readdirSync(histograms).filter((n) => n.endsWith(".parquet")).length > 1,
    "the latency histograms were written in parts");
  assert.ok(!existsSync(`${histograms}.parquet`), "and not whole");
  const run = spawnSync(process.execPath, ["--test", "--test-reporter=tap", "--test-name-pattern=run page|data page|Data page",
    join(ROOT, "tests", "browser", "site.test.mjs")], {cwd: ROOT, encoding: "utf-8", timeout: 600000, env: ownRunner({...process.env, IOPSCOPE_DIST: DIST})});
  const failed = run.stdout.split("\n").filter((line) => /^\s*not ok/.test(line));
  assert.equal(run.status, 0, `site.test.mjs against the site in parts:\n${failed.join("\n")}\n${run.stdout.slice(-6000)}\n${run.stderr.slice(-2000)}`);
  // the run page's tests ran (not all skipped for want of a matching name)
  assert.match(run.stdout, /# pass ([6-9]|\d\d)/);
  assert.match(run.stdout, /byte ranges of the marts' Parquet files/);
});

test("the overview pages show the same with their members in segments as whole", async () => {
  const folder = join(DIST, "_file", "data", "pages");
  const member = (name) => {
    const file = readdirSync(folder).find((n) => n.startsWith(`${name}.`) && n.endsWith(".json"));
    return JSON.parse(readFileSync(join(folder, file), "utf-8"));
  };
  for (const name of ["fio_results", "tpcc_results", "runs_list", "compare_runs", "tpcc_series"]) {
    assert.ok(member(name).data.run_id.parts?.length > 1, `${name} was written in segments`);
  }
  const servers = [await startServer(MAIN_DIST), await startServer(DIST)];
  const browser = await launchBrowser();
  try {
    const pages = [["/", "#holdings"], ["/tpcc", "#chart-throughput .vega-chart"], ["/fio", "#chart-iops .vega-chart"],
      ["/compare", "#compare-panel, main .note"], ["/runs/", "#runs-table"], ["/sizing", ".sizing-summaries li"], ["/configs", "#config-list"]];
    for (const [path, ready] of pages) {
      const seen = [];
      for (const server of servers) {
        const {page, problems, close} = await openPage(browser, server.url, path, {ready, viewport: {width: 1400, height: 1000}});
        try {
          await drawAllCharts(page);
          assert.deepEqual(problems, [], `${path} at ${server.url}`);
          seen.push({text: await page.locator("main").innerText(),
            charts: await page.locator(".vega-chart[data-rendered]").count()});
        } finally {
          await close();
        }
      }
      assert.ok(seen[0].text.length > 200, `${path} shows something`);
      assert.deepEqual(seen[1], seen[0], `${path}: the page in segments differs from the page whole`);
    }
  } finally {
    await browser.close();
    for (const server of servers) server.stop();
  }
});
