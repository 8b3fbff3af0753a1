// A site updated in place (sitebuild/update.js) is the site a full build makes of the same
// warehouse: built in full from the bundled warehouse without one TPC-C run, then updated in
// place once the run is back, it must hold the same files with the same bytes as Framework's own
// build of the whole warehouse (names with a hash and file times aside), and work in Chromium
// with the run on its page. A change to a page's source makes the next build a full one again,
// into an output outside the working directory too (Framework refuses to write over one); with
// nothing changed, a build writes nothing.
import assert from "node:assert/strict";
import {spawnSync} from "node:child_process";
import {appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync} from "node:fs";
import {tmpdir} from "node:os";
import {dirname, join} from "node:path";
import {after, before, test} from "node:test";
import {ROOT, launchBrowser, openPage, startServer} from "./harness.mjs";

const WORK = join(ROOT, "tests", "artifacts", "site-update");
const WAREHOUSE = join(WORK, "wh", "iopscope.duckdb");
const BUNDLED = process.env.IOPSCOPE_WAREHOUSE || join(ROOT, "data", "warehouse", "iopscope.duckdb");
const PYTHON = existsSync(join(ROOT, ".venv/bin/python")) ? join(ROOT, ".venv/bin/python") : "python3";
const IOPSCOPE = existsSync(join(ROOT, ".venv/bin/iopscope")) ? join(ROOT, ".venv/bin/iopscope") : "iopscope";
// outside the working directory, where Framework does not clear an output itself
const OUT = mkdtempSync(join(tmpdir(), "iopscope-site-update-"));
const DIST = join(OUT, "dist");
const FULL = join(OUT, "dist-full");

// The bundled warehouse, whole or without some rows in every mart: "device" leaves out the
// measured device with the most TPC-C runs and its runs (a device gone changes the colours of
// all, so device-colors.js, which names device_colors.json, is renamed with it), "run" one
// TPC-C run of that device (device and colours stay), "keep" nothing. Prints the run.
const WITHOUT = `
import duckdb, sys
path, mode = sys.argv[1], sys.argv[2]
con = duckdb.connect(path)
measured = "select * from marts.fct_tpcc_results where source_kind = 'measured'"
device = con.execute(f"select device_id from ({measured}) group by 1 order by count(*) desc, 1 limit 1").fetchone()[0]
runs = [r for (r,) in con.execute(f"select distinct run_id from ({measured}) where device_id = ? order by 1 desc", [device]).fetchall()]
def tables(column):
    return [t for (t,) in con.execute("""select table_name from duckdb_tables() t where schema_name = 'marts' and exists (
        select 1 from duckdb_columns() c where c.schema_name = 'marts' and c.table_name = t.table_name and c.column_name = ?)""",
        [column]).fetchall()]
if mode in ("device", "run"):
    for table in tables("run_id"):
        con.execute(f'delete from marts."{table}" where run_id in (select unnest(?))', [runs if mode == "device" else runs[:1]])
if mode == "device":
    for table in tables("device_id"):
        con.execute(f'delete from marts."{table}" where device_id = ?', [device])
con.close()
print(runs[0])
`;

function warehouse(mode) {
  mkdirSync(join(WORK, "wh"), {recursive: true});
  cpSync(BUNDLED, WAREHOUSE);
  const done = spawnSync(PYTHON, ["-c", WITHOUT, WAREHOUSE, mode], {encoding: "utf-8"});
  assert.equal(done.status, 0, done.stderr);
  return done.stdout.trim();
}

/** `iopscope build` of the site alone into `dist`; its log. */
function build(dist, extraArgs = []) {
  const done = spawnSync(IOPSCOPE, ["build", "--skip", "ingest", "--skip", "dbt", ...extraArgs], {
    cwd: ROOT, encoding: "utf-8", timeout: 600000,
    env: {...process.env, IOPSCOPE_SITE_ROOT: join(WORK, "src"), IOPSCOPE_DIST: dist, IOPSCOPE_WAREHOUSE: WAREHOUSE}
  });
  const log = `${done.stdout}\n${done.stderr}`;
  assert.equal(done.status, 0, `the site did not build:\n${log.slice(-4000)}`);
  return log;
}

/** Every file of a built site: its path with Framework's 8-digit hashes out of names -> path. */
function files(dir) {
  const out = new Map();
  const walk = (prefix) => {
    for (const entry of readdirSync(join(dir, prefix), {withFileTypes: true})) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(rel);
      else out.set(unhashed(rel), rel);
    }
  };
  walk("");
  return out;
}

const unhashed = (text) => text.replace(/([\w@-]+)\.[0-9a-f]{8}\.(js|json|jsonl|gz|css|wasm)\b/g, "$1.#.$2");
// What may differ between two builds of the same warehouse: the hashed names of modules (which
// Framework's hash of a module mixes with the data files' times), the files' times, and the
// SQL console's database (a DuckDB file written again has other block numbers: same rows).
const comparable = (text) => unhashed(text)
  .replace(/"lastModified":\d+/g, '"lastModified":0')
  .replace(/registerFile\("[^"]*warehouse\.duckdb\.gz", \{[^}]*\}\);/g, "registerFile(warehouse.duckdb.gz)");

let runId;
let updateLog;

before(() => {
  rmSync(WORK, {recursive: true, force: true});
  // the site's sources and the npm bundles the main build made (re-bundling vega and DuckDB-WASM
  // would take a minute), none of its data
  cpSync(join(ROOT, "src"), join(WORK, "src"), {recursive: true, filter: (path) => !path.includes(join(".observablehq", "cache", "data"))});
  rmSync(join(WORK, "src", ".observablehq", "cache", "iopscope-site.json"), {force: true});
  warehouse("device");
  const first = build(DIST);
  assert.match(first, /iopscope: full site build \(no record of a full build of this site\)/);
  runId = warehouse("keep");
  updateLog = build(DIST);
});

after(() => rmSync(OUT, {recursive: true, force: true}));

test("the run comes back by an update in place: data, pages and the modules that name a changed file, no page rebuilt", () => {
  const line = updateLog.split("\n").find((l) => l.startsWith("iopscope: site updated in place"));
  assert.ok(line, `no update in place:\n${updateLog.slice(-3000)}`);
  const [, changed, modules, pages] = /(\d+) of the pages' files changed, (\d+) modules renamed with them, (\d+) pages rewritten/.exec(line);
  assert.ok(Number(changed) >= 3, line); // the run list, the TPC-C results, the marts' index at least
  assert.ok(Number(modules) >= 1, `${line}: device_colors.json changes with the device's rows, and device-colors.js names it`);
  assert.ok(Number(pages) >= 3, line);
  assert.doesNotMatch(updateLog, /\bbuilt \d+ pages\b|render \//, "Framework rendered no page");
});

/** Asserts that the site in DIST holds the files of the one in FULL, as `comparable` sees them. */
function assertSameSite() {
  const updated = files(DIST);
  const reference = files(FULL);
  assert.deepEqual([...updated.keys()].sort(), [...reference.keys()].sort(), "the same files");
  let compared = 0;
  for (const [name, rel] of reference) {
    if (name === "_file/data/warehouse.duckdb.#.gz") continue; // same rows, not the same bytes (above)
    const a = readFileSync(join(DIST, updated.get(name)));
    const b = readFileSync(join(FULL, rel));
    if (/\.(html|js)$/.test(name)) assert.equal(comparable(a.toString("utf-8")), comparable(b.toString("utf-8")), name);
    else assert.ok(a.equals(b), `${name}: other bytes`);
    compared += 1;
  }
  assert.ok(compared > 100, `${compared} files compared`);
}

test("the output updated in place holds what a full build of the same warehouse writes", () => {
  const full = build(FULL);
  assert.match(full, /iopscope: full site build \(the last full build wrote to /);
  assertSameSite();
});

test("one run out and back in, in place twice (the colours stay: no module renamed): the same site again", () => {
  // (the record is now of FULL: one full build of DIST first)
  assert.match(build(DIST), /iopscope: full site build \(the last full build wrote to .*dist-full\)/);
  warehouse("run");
  const out = build(DIST);
  assert.match(out, /iopscope: site updated in place, no page rebuilt: [1-9]\d* of the pages' files changed, 0 modules renamed/);
  warehouse("keep");
  assert.match(build(DIST), /iopscope: site updated in place, no page rebuilt: [1-9]\d* of the pages' files changed, 0 modules renamed/);
  assertSameSite();
});

test("the updated site shows the run and its pages load cleanly in Chromium", async () => {
  const server = await startServer(DIST);
  const browser = await launchBrowser();
  try {
    for (const [path, ready] of [[`/runs/run?id=${encodeURIComponent(runId)}`, "#run-tpcc, #run-fio"], ["/", "#holdings"],
                                 ["/tpcc", "#chart-throughput .vega-chart[data-rendered]"], ["/runs/", "#runs-table"]]) {
      const {page, problems, close} = await openPage(browser, server.url, path, {ready, timeout: 30000});
      try {
        assert.deepEqual(problems, [], `${path}: ${problems.join("; ")}`);
        if (path.startsWith("/runs/run")) assert.equal(await page.locator("#run-title").innerText(), `Run ${runId}`);
      } finally {
        await close();
      }
    }
  } finally {
    await browser.close();
    server.stop();
  }
});

test("a page's source changed: the next build is Framework's, and it writes over an output outside the working directory", () => {
  appendFileSync(join(WORK, "src", "404.md"), "\n<!-- edited -->\n");
  assert.match(build(DIST), /iopscope: full site build \(the site's sources, configuration or packages changed since the last full build\)/);
  assert.match(readFileSync(join(DIST, "404.html"), "utf-8"), /<!-- edited -->/);
});

test("nothing changed since the last build: no loader runs and nothing is written", () => {
  const before = new Map([...files(DIST).values()].map((rel) => [rel, statSync(join(DIST, rel)).mtimeMs]));
  const log = build(DIST);
  assert.match(log, /iopscope: site up to date: the warehouse and the site's sources are those of the last build/);
  assert.doesNotMatch(log, /data loader/);
  const after = new Map([...files(DIST).values()].map((rel) => [rel, statSync(join(DIST, rel)).mtimeMs]));
  assert.deepEqual(after, before);
  warehouse("keep"); // the same rows in a file written again: the loaders run, the site is updated in place
  assert.match(build(DIST), /iopscope: site updated in place/);
});

test("npm run build (the loaders' outputs of the last build still cached) takes a changed warehouse in too", () => {
  const catalog = () => readFileSync(join(DIST, files(DIST).get("_file/data/catalog.#.json")), "utf-8");
  assert.ok(catalog().includes(`"${runId}"`), "the run is in the catalog");
  warehouse("run");
  // (the loaders' Python as `iopscope build` gives it them: the venv's, first on PATH)
  const bin = dirname(PYTHON);
  const done = spawnSync(process.execPath, [join(ROOT, "sitebuild", "build.js")], {
    cwd: ROOT, encoding: "utf-8", timeout: 600000,
    env: {...process.env, PATH: `${bin}:${process.env.PATH}`, IOPSCOPE_HOME: ROOT, IOPSCOPE_SITE_ROOT: join(WORK, "src"),
          IOPSCOPE_DIST: DIST, IOPSCOPE_WAREHOUSE: WAREHOUSE}
  });
  assert.equal(done.status, 0, done.stderr.slice(-3000));
  assert.match(done.stderr, /iopscope: site updated in place, no page rebuilt: [1-9]\d* of the pages' files changed/);
  assert.ok(!catalog().includes(`"${runId}"`), "the run left the catalog");
});
