// The site with its big marts in parts (src/data/_run_parquet.py plan_parts), as a lab's site is
// past ~1 M rows a mart: the bundled data is far below that, so this builds a private copy of
// the site with a part size of 20,000 rows (the latency histograms then come in several parts)
// and runs the run page's and Data page's tests of site.test.mjs against it.
import assert from "node:assert/strict";
import {spawnSync} from "node:child_process";
import {cpSync, existsSync, readdirSync, rmSync} from "node:fs";
import {join} from "node:path";
import {before, test} from "node:test";
import {ROOT} from "./harness.mjs";

const WORK = join(ROOT, "tests", "artifacts", "site-parts");
const DIST = join(WORK, "dist");
const PART_ROWS = "20000";

before(() => {
  rmSync(WORK, {recursive: true, force: true});
  // the site's sources, and the npm bundles the main build made (re-bundling vega and
  // DuckDB-WASM would take a minute), but none of its data
  cpSync(join(ROOT, "src"), join(WORK, "src"), {recursive: true, filter: (path) => !path.includes(join(".observablehq", "cache", "data"))});
  const iopscope = existsSync(join(ROOT, ".venv/bin/iopscope")) ? join(ROOT, ".venv/bin/iopscope") : "iopscope";
  const build = spawnSync(iopscope, ["build", "--skip", "ingest", "--skip", "dbt"], {
    cwd: ROOT, encoding: "utf-8", timeout: 600000,
    env: {...process.env, IOPSCOPE_SITE_ROOT: join(WORK, "src"), IOPSCOPE_DIST: DIST,
      IOPSCOPE_SITE_PART_ROWS: PART_ROWS, IOPSCOPE_SITE_PARTS_DIR: join(WORK, "parts")}
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
