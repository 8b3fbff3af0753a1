// Text from data is always text. A private raw tree holds a run whose manifest puts markup
// (<img onerror=...>, <script>) in its run id, tags, description, host, device and DB
// configuration. It goes through the real pipeline (ingest -> dbt -> site build) into
// tests/artifacts/injection/, and Chromium must show every string literally: no <img> or
// <script> element created from data, no dialog, no console error.
//
// The build is cached: it is redone only when src/, models/, macros/, ingest/ or this test's
// manifest change (a cold build takes about a minute on 2 cores).
import assert from "node:assert/strict";
import {execFileSync} from "node:child_process";
import {createHash} from "node:crypto";
import {cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync} from "node:fs";
import {join, relative} from "node:path";
import {after, before, describe, test} from "node:test";
import {ROOT, launchBrowser, openPage, screenshot, startServer} from "./harness.mjs";

const WORK = join(ROOT, "tests", "artifacts", "injection");
const MARTS = ["dim_runs", "dim_hosts", "dim_devices", "dim_db_configs", "fct_fio_results"];
const RAW = join(WORK, "raw");
const DIST = join(WORK, "dist");
const SITE_ROOT = join(WORK, "src");
// A real measured run to borrow a fio.json from (the bundled thin slice, or any bundled run
// with a fio.json at its top level).
const SOURCE_RUN = (() => {
  const measured = join(ROOT, "data", "raw", "measured");
  const preferred = join(measured, "2026-11-21-vm2-vda-fio-database-thin-slice");
  if (existsSync(join(preferred, "fio.json"))) return preferred;
  const other = existsSync(measured) ? readdirSync(measured).map((d) => join(measured, d)).find((d) => existsSync(join(d, "fio.json"))) : null;
  return other ?? preferred;
})();

export const IMG = "<img src=x onerror=alert(1)>";
const RUN_ID = "inj<svg onload=alert(2)>run";
const CPU = "<script>alert(4)</script>Xeon";
const DEVICE_ID = "evil<i>dev</i>";
const DEVICE_MODEL = "<img src=y onerror=alert(5)>";
const PARAM_VALUE = "<img src=z onerror=alert(6)>";
const CONFIG_ID = "evil<b>config</b>";

const toml = (s) => JSON.stringify(s); // TOML basic strings accept JSON string escapes
const MANIFEST = `# Hostile text in every free-text field (browser injection test).
schema_version = 1
run_id = ${toml(RUN_ID)}
kind = "measured"
tools = ["fio"]
started_at = 2026-11-21T13:20:53Z
status = "complete"
description = ${toml(`${IMG} <b>not bold</b> & "quotes"`)}
tags = [${toml(IMG)}, "plain-tag"]

[host]
host_id = "injection-host"
cpu_model = ${toml(CPU)}
logical_cpus = 2

[[devices]]
device_id = ${toml(DEVICE_ID)}
kernel_name = "vda"
role = "data"
model = ${toml(DEVICE_MODEL)}
media = "virtual"

[db]
server = "MySQL"
config_id = ${toml(CONFIG_ID)}

[db.parameters]
innodb_flush_method = ${toml(PARAM_VALUE)}

[fio]
measurement_area = "256MiB"

[[files]]
path = "fio.json"
format = "fio_json"
role = "result"
`;

function inputsHash() {
  const hash = createHash("sha256").update(MANIFEST);
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, {withFileTypes: true}).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === ".observablehq" || entry.name === "__pycache__" || entry.name.endsWith(".egg-info")) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(relative(ROOT, path)).update(readFileSync(path));
    }
  };
  for (const dir of ["src", "sitebuild", "models", "macros", "ingest/iopscope"]) walk(join(ROOT, dir));
  for (const file of ["observablehq.config.js", "dbt_project.yml", "package-lock.json", relative(ROOT, join(SOURCE_RUN, "run.toml"))]) {
    const path = join(ROOT, file);
    if (existsSync(path)) hash.update(readFileSync(path));
  }
  return hash.digest("hex");
}

function buildInjectionSite() {
  const key = inputsHash();
  const stamp = join(WORK, "inputs.sha256");
  if (existsSync(stamp) && readFileSync(stamp, "utf-8") === key && existsSync(join(DIST, "index.html"))) return;
  const run = join(RAW, "measured", "injection-run");
  rmSync(RAW, {recursive: true, force: true});
  mkdirSync(run, {recursive: true});
  writeFileSync(join(run, "run.toml"), MANIFEST);
  cpSync(join(SOURCE_RUN, "fio.json"), join(run, "fio.json"));
  // A plain run beside it, so the Compare page has two runs whose conditions differ.
  cpSync(SOURCE_RUN, join(RAW, "measured", "plain-run"), {recursive: true});
  // Fresh lake and warehouse; dbt's target/ stays so its partial parsing saves time next run.
  rmSync(join(WORK, "lake"), {recursive: true, force: true});
  rmSync(join(WORK, "wh.duckdb"), {force: true});
  const env = {
    ...process.env,
    IOPSCOPE_RAW: RAW, IOPSCOPE_LAKE: join(WORK, "lake"), IOPSCOPE_WAREHOUSE: join(WORK, "wh.duckdb"),
    DBT_TARGET_PATH: join(WORK, "target"), DBT_LOG_PATH: join(WORK, "logs"),
    IOPSCOPE_SITE_ROOT: relative(ROOT, SITE_ROOT), IOPSCOPE_DIST: relative(ROOT, DIST),
    OBSERVABLE_TELEMETRY_DISABLE: "true", DBT_SEND_ANONYMOUS_USAGE_STATS: "False", DO_NOT_TRACK: "1",
    PATH: `${join(ROOT, ".venv", "bin")}:${process.env.PATH}`
  };
  const iopscope = existsSync(join(ROOT, ".venv/bin/iopscope")) ? join(ROOT, ".venv/bin/iopscope") : "iopscope";
  const run_ = (cmd, args) => execFileSync(cmd, args, {cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20});
  run_(iopscope, ["ingest", "--quiet"]);
  try {
    // Only the marts the pages below read (and what they depend on); models only, no data tests
    // (those are the dbt suite's job).
    run_(iopscope, ["dbt", "run", "--select", ...MARTS.map((m) => `+${m}`)]);
  } catch (error) {
    // A model failing elsewhere must not hide what this test checks; the marts this test needs
    // are asserted below, and the dbt suite reports the failure itself.
    process.stderr.write(`injection test: dbt run reported a failure (continuing with the marts built): ${error.message.split("\n")[0]}\n`);
  }
  // A copy of src/ with its own Framework cache (keeping the bundled npm modules between runs),
  // so this build never touches src/.observablehq/cache of the real site.
  const cache = join(SITE_ROOT, ".observablehq", "cache");
  if (existsSync(cache)) {
    for (const entry of readdirSync(cache)) if (entry !== "_node") rmSync(join(cache, entry), {recursive: true, force: true});
  }
  // Reuse the npm bundles the main site build made (same lock file, same bundles): bundling
  // vega and DuckDB-WASM again would take most of a minute.
  const mainNode = join(ROOT, "src", ".observablehq", "cache", "_node");
  if (!existsSync(join(cache, "_node")) && existsSync(mainNode)) cpSync(mainNode, join(cache, "_node"), {recursive: true});
  for (const entry of readdirSync(join(ROOT, "src"))) {
    if (entry === ".observablehq") continue;
    rmSync(join(SITE_ROOT, entry), {recursive: true, force: true});
    cpSync(join(ROOT, "src", entry), join(SITE_ROOT, entry), {recursive: true, filter: (p) => !p.includes("__pycache__")});
  }
  run_(join(ROOT, "node_modules", ".bin", "observable"), ["build"]);
  writeFileSync(stamp, key);
}

// The plain run keeps its own manifest's run id.
const PLAIN_RUN_ID = readFileSync(join(SOURCE_RUN, "run.toml"), "utf-8").match(/^run_id\s*=\s*"([^"]+)"/m)?.[1];

let browser;
let server;
let catalog;
before(async () => {
  buildInjectionSite();
  catalog = JSON.parse(readFileSync(join(DIST, "_file", "data", findFile(join(DIST, "_file", "data"), /^catalog\.[0-9a-f]+\.json$/)), "utf-8"));
  browser = await launchBrowser();
  server = await startServer(DIST);
}, {timeout: 300000});
after(async () => {
  await browser?.close();
  server?.stop();
});

function findFile(dir, pattern) {
  const name = readdirSync(dir).find((n) => pattern.test(n) && statSync(join(dir, n)).isFile());
  assert.ok(name, `no file matching ${pattern} in ${dir}`);
  return name;
}

/** No element created from data: no <img>, no <script> outside Framework's own, no <svg onload>. */
async function assertNoInjectedElements(page) {
  const found = await page.evaluate(() => ({
    img: document.querySelectorAll("img").length,
    b: [...document.querySelectorAll("main b, main i")].map((e) => e.outerHTML),
    scripts: [...document.querySelectorAll("script")].filter((s) => /alert\(/.test(s.textContent)).length,
    handlers: [...document.querySelectorAll("[onerror], [onload]")].map((e) => e.outerHTML)
  }));
  assert.deepEqual(found, {img: 0, b: [], scripts: 0, handlers: []});
}

async function mainText(page) {
  return page.locator("main").innerText();
}

describe("hostile text from data is shown literally", () => {
  test("the run got a safe file name (slug) for its data", () => {
    const run = catalog.runs.find((r) => r.run_id === RUN_ID);
    assert.ok(run, `run ${RUN_ID} missing from the catalog: ${JSON.stringify(catalog.runs)}`);
    assert.match(run.slug, /^run-[0-9a-f]{16}$/);
  });

  test("run page: title, tags, description, host, device and DB parameter as text", async () => {
    // The one run page takes the raw id in its address; the bundle it fetches has the hashed slug.
    const path = `/runs/run?${new URLSearchParams([["id", RUN_ID]])}`;
    const {page, problems, close} = await openPage(browser, server.url, path, {ready: "#run-tags"});
    try {
      await screenshot(page, "injection_run");
      await assertNoInjectedElements(page);
      const text = await mainText(page);
      assert.ok(text.includes(`Run ${RUN_ID}`), "run id shown literally in the title");
      assert.ok((await page.locator("#run-tags").innerText()).includes(IMG), "tag shown literally");
      assert.ok((await page.locator("#run-description").innerText()).includes(`${IMG} <b>not bold</b> & "quotes"`));
      assert.ok(text.includes(CPU), "host CPU model shown literally");
      assert.ok(text.includes(DEVICE_MODEL), "device model shown literally");
      assert.ok(text.includes(PARAM_VALUE), "DB parameter value shown literally");
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  test("runs list, compare, configs, fio and SQL pages show it as text too", async () => {
    const pages = [
      ["/runs/", "#runs-table", [IMG, RUN_ID]],
      [`/compare?mode=runs&run=${encodeURIComponent(RUN_ID)}&run=${encodeURIComponent(PLAIN_RUN_ID)}`, "#differing-conditions", [CPU, DEVICE_ID]],
      [`/configs?a=${encodeURIComponent(CONFIG_ID)}&b=(none)`, "#config-params", [PARAM_VALUE, CONFIG_ID]],
      [`/fio?device=${encodeURIComponent(DEVICE_ID)}`, ".vega-chart[data-rendered]", [DEVICE_MODEL]]
    ];
    for (const [path, ready, expected] of pages) {
      const {page, problems, close} = await openPage(browser, server.url, path, {ready});
      try {
        await screenshot(page, `injection_${path.split("?")[0].replaceAll("/", "_") || "index"}`);
        await assertNoInjectedElements(page);
        const text = await mainText(page);
        for (const e of expected) assert.ok(text.includes(e), `${path}: ${e} not shown literally`);
        assert.deepEqual(problems, [], path);
      } finally {
        await close();
      }
    }
  });

  test("chart tooltips escape device names", async () => {
    const {page, problems, close} = await openPage(browser, server.url, `/fio?device=${encodeURIComponent(DEVICE_ID)}&dir=read`, {ready: "#chart-iops .vega-chart[data-rendered]"});
    try {
      const box = await page.locator("#chart-iops g.mark-symbol.role-mark path").first().boundingBox();
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.waitForSelector("#vg-tooltip-element.visible", {timeout: 3000});
      const tip = await page.locator("#vg-tooltip-element").evaluate((e) => ({html: e.innerHTML, text: e.innerText}));
      assert.ok(tip.text.includes(DEVICE_MODEL), `tooltip text: ${tip.text}`);
      assert.ok(!tip.html.includes("<img"), "tooltip must not contain an img element");
      await assertNoInjectedElements(page);
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });
});
