// sitebuild/update.js: what an in-place update of a built site reads and rewrites in Framework's
// output (registrations in pages, attachments in modules, module names), and when it refuses.
// The whole update against a real Framework build: tests/browser/site-update.test.mjs.
import assert from "node:assert/strict";
import {createHash} from "node:crypto";
import {mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {dirname, join, resolve} from "node:path";
import {after, test} from "node:test";
import {
  attachedFiles, dataDigest, describeBuild, hashedName, modulesToRewrite, registeredFiles, rehashedModule, renameModules,
  rewriteAttachments, rewriteRegistrations, siteInputsDigest, whyNotInPlace
} from "../../sitebuild/update.js";
import {recordDynamicPaths} from "../../sitebuild/warehouse-paths.js";

const made = [];
after(() => made.forEach((dir) => rmSync(dir, {recursive: true, force: true})));

function write(path, text) {
  mkdirSync(dirname(path), {recursive: true});
  writeFileSync(path, text);
}

const register = (name, info) => `\nregisterFile(${JSON.stringify(name)}, ${JSON.stringify(info)});`;
// a page of runs/ as Framework 1.13 writes it (render.js registerFile), two files registered
const RUN_PAGE = `<link rel="modulepreload" href="../_import/components/vega.09a2b0da.js">
<script type="module">
import {define} from "../_observablehq/client.d10d8454.js";
${register("../data/marts/run_marts.json", {name: "../data/marts/run_marts.json", mimeType: "application/json", path: "../_file/data/marts/run_marts.ec40e3de.json", lastModified: 1795895489308, size: 82405})}
${register("../data/pages/device_colors.json", {name: "../data/pages/device_colors.json", mimeType: "application/json", path: "../_file/data/pages/device_colors.dd2eca1b.json", lastModified: 1795895487780, size: 35382})}
define({id: "1", body: async () => { const [{colorOf}] = await Promise.all([import("../_import/components/vega.09a2b0da.js")]); }});
</script>`;
const COLORS_MODULE = `import {deviceColorer} from "./palette.d98b2a86.js";
const payload = await FileAttachment({"name":"../../data/pages/device_colors.json","mimeType":"application/json","path":"../../_file/data/pages/device_colors.dd2eca1b.json","lastModified":1795895487780,"size":35382}, import.meta.url).json();
`;

test("Framework's hashed name: the first 8 hex digits of the content's sha256 before the last extension", () => {
  const bytes = Buffer.from("some bytes");
  const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 8);
  assert.equal(hashedName("/_file/data/warehouse.duckdb.gz", bytes), `/_file/data/warehouse.duckdb.${hash}.gz`);
  assert.equal(hashedName("/_file/data/pages/home.json", bytes), `/_file/data/pages/home.${hash}.json`);
  assert.equal(rehashedModule("_import/components/vega.09a2b0da.js", "text"),
    `_import/components/vega.${createHash("sha256").update("text").digest("hex").slice(0, 8)}.js`);
});

test("a page's registrations are read as absolute names and rewritten for the changed file only", () => {
  const files = registeredFiles(RUN_PAGE, "runs/run.html");
  assert.deepEqual(files.map((f) => [f.name, f.alias, f.size]), [
    ["/data/marts/run_marts.json", "/_file/data/marts/run_marts.ec40e3de.json", 82405],
    ["/data/pages/device_colors.json", "/_file/data/pages/device_colors.dd2eca1b.json", 35382]
  ]);
  const changes = new Map([["/data/marts/run_marts.json", {alias: "/_file/data/marts/run_marts.0123abcd.json", lastModified: 1795895999000, size: 90000}]]);
  const text = rewriteRegistrations(RUN_PAGE, "runs/run.html", changes);
  assert.equal(text, RUN_PAGE.replace('"path":"../_file/data/marts/run_marts.ec40e3de.json","lastModified":1795895489308,"size":82405',
    '"path":"../_file/data/marts/run_marts.0123abcd.json","lastModified":1795895999000,"size":90000'));
  // a page at the top: "./" paths, as Framework's relativePath writes them
  const top = register("./data/pages/home.json", {name: "./data/pages/home.json", mimeType: "application/json", path: "./_file/data/pages/home.2d179858.json", lastModified: 1, size: 2});
  const topText = rewriteRegistrations(top, "index.html", new Map([["/data/pages/home.json", {alias: "/_file/data/pages/home.ffffffff.json", lastModified: 3, size: 4}]]));
  assert.match(topText, /"path":"\.\/_file\/data\/pages\/home\.ffffffff\.json","lastModified":3,"size":4\}\);$/);
  assert.equal(rewriteRegistrations(RUN_PAGE, "runs/run.html", new Map()), RUN_PAGE);
});

test("a module's attachments are read and rewritten; renamed modules are renamed in importers and pages", () => {
  const rel = "_import/components/device-colors.c57c4af0.js";
  assert.deepEqual(attachedFiles(COLORS_MODULE, rel), ["/data/pages/device_colors.json"]);
  const changes = new Map([["/data/pages/device_colors.json", {alias: "/_file/data/pages/device_colors.99999999.json", lastModified: 5, size: 6}]]);
  const text = rewriteAttachments(COLORS_MODULE, rel, changes);
  assert.match(text, /"path":"\.\.\/\.\.\/_file\/data\/pages\/device_colors\.99999999\.json","lastModified":5,"size":6\}, import\.meta\.url\)/);
  assert.ok(text.startsWith('import {deviceColorer} from "./palette.d98b2a86.js";'));
  const renames = new Map([["_import/components/vega.09a2b0da.js", "_import/components/vega.12345678.js"]]);
  const page = renameModules(RUN_PAGE, renames);
  assert.equal(page.split("vega.12345678.js").length - 1, 2, "the preload and the import");
  assert.ok(!page.includes("vega.09a2b0da.js"));
  // only whole names: a module whose name ends the same is not touched
  assert.equal(renameModules('import "./my-vega.09a2b0da.js";', renames), 'import "./my-vega.09a2b0da.js";');
});

test("the modules to rewrite: the one naming the file, its importers and theirs, dependencies first; a cycle refuses", () => {
  const modules = new Map([
    ["_import/components/device-colors.aaaaaaaa.js", 'import "./palette.bbbbbbbb.js";'],
    ["_import/components/palette.bbbbbbbb.js", ""],
    ["_import/components/vega.cccccccc.js", 'import "./device-colors.aaaaaaaa.js";'],
    ["_import/components/charts.dddddddd.js", 'import {x} from "./vega.cccccccc.js";'],
    ["_import/components/ui.eeeeeeee.js", 'import "./palette.bbbbbbbb.js";']
  ]);
  assert.deepEqual(modulesToRewrite(modules, ["_import/components/device-colors.aaaaaaaa.js"]),
    ["_import/components/device-colors.aaaaaaaa.js", "_import/components/vega.cccccccc.js", "_import/components/charts.dddddddd.js"]);
  assert.deepEqual(modulesToRewrite(modules, []), []);
  const cycle = new Map(modules);
  cycle.set("_import/components/device-colors.aaaaaaaa.js", 'import "./charts.dddddddd.js";');
  assert.equal(modulesToRewrite(cycle, ["_import/components/device-colors.aaaaaaaa.js"]), null);
});

/** A root, project and output as a full build leaves them: two pages, a module naming a file. */
function builtSite() {
  const base = mkdtempSync(join(tmpdir(), "iopscope-update-"));
  made.push(base);
  const project = join(base, "project");
  const root = join(project, "src");
  const output = join(project, "dist");
  write(join(root, "index.md"), "# home\n");
  write(join(root, "components", "device-colors.js"), "// source\n");
  write(join(project, "observablehq.config.js"), "export default {};\n");
  write(join(project, "sitebuild", "build.js"), "// build\n");
  write(join(output, "index.html"), register("./data/pages/device_colors.json", {name: "./data/pages/device_colors.json", mimeType: "application/json", path: "./_file/data/pages/device_colors.dd2eca1b.json", lastModified: 1, size: 2}));
  write(join(output, "runs", "run.html"), RUN_PAGE);
  write(join(output, "_file", "data", "pages", "device_colors.dd2eca1b.json"), "{}");
  write(join(output, "_file", "data", "marts", "run_marts.ec40e3de.json"), "{}");
  write(join(output, "_import", "components", "device-colors.c57c4af0.js"), COLORS_MODULE);
  write(join(output, "_observablehq", "client.d10d8454.js"), "// client\n");
  recordDynamicPaths(root, ["/data/marts/a.parquet"]);
  return {project, root, output};
}

test("a build's record: pages, modules and the files each names; refused without the dynamic paths or for a stray attachment", () => {
  const {project, root, output} = builtSite();
  const inputs = siteInputsDigest(root, output, project);
  const {manifest, reason} = describeBuild(root, output, inputs);
  assert.equal(reason, null);
  assert.deepEqual(Object.keys(manifest.pages).sort(), ["index.html", "runs/run.html"]);
  assert.deepEqual(Object.keys(manifest.modules), ["_import/components/device-colors.c57c4af0.js"]);
  assert.deepEqual(manifest.files["/data/pages/device_colors.json"].pages.sort(), ["index.html", "runs/run.html"]);
  assert.deepEqual(manifest.files["/data/pages/device_colors.json"].modules, ["_import/components/device-colors.c57c4af0.js"]);
  assert.deepEqual(manifest.files["/data/marts/run_marts.json"].modules, []);
  assert.deepEqual(manifest.dynamic, ["/data/marts/a.parquet"]);
  assert.equal(manifest.output, resolve(output));
  assert.equal(whyNotInPlace(manifest, root, output, inputs), null);

  write(join(output, "_import", "components", "stray.12345678.js"),
    'FileAttachment({"name":"../../data/nowhere.json","mimeType":"application/json","path":"../../_file/data/nowhere.1.json","lastModified":1,"size":1}, import.meta.url)');
  assert.match(describeBuild(root, output, inputs).reason, /names \/data\/nowhere\.json, which no page registers/);
  rmSync(join(root, ".observablehq", "cache", "iopscope-dynamic-paths.json"));
  assert.match(describeBuild(root, output, inputs).reason, /did not note its dynamic paths/);
});

test("an update in place is refused when the sources, the output or its pages and modules are not those of the record", () => {
  const {project, root, output} = builtSite();
  const inputs = siteInputsDigest(root, output, project);
  const {manifest} = describeBuild(root, output, inputs);
  assert.match(whyNotInPlace(null, root, output, inputs), /no record of a full build/);
  assert.match(whyNotInPlace(manifest, root, join(project, "elsewhere"), inputs), /the last full build wrote to/);

  // the digest: a page source, a loader, sitebuild/ or the configuration changed; not the cache
  write(join(root, ".observablehq", "cache", "data", "x.json"), "[]");
  assert.equal(siteInputsDigest(root, output, project), inputs, "the loaders' cache is not a source");
  for (const [file, text] of [[join(root, "index.md"), "# home, edited\n"], [join(root, "data", "new.json.py"), "print(1)\n"],
                              [join(project, "sitebuild", "build.js"), "// changed\n"], [join(project, "observablehq.config.js"), "export default {title: 1};\n"]]) {
    const {project: p2, root: r2, output: o2} = builtSite();
    const before = siteInputsDigest(r2, o2, p2);
    write(file.replace(project, p2), text);
    assert.notEqual(siteInputsDigest(r2, o2, p2), before, `${file} is part of the digest`);
  }
  assert.match(whyNotInPlace(manifest, root, output, "another digest"), /sources, configuration or packages changed/);

  write(join(output, "runs", "run.html"), `${RUN_PAGE}<!-- edited -->`);
  assert.match(whyNotInPlace(manifest, root, output, inputs), /runs\/run\.html in .* is not as the last build wrote it/);
  write(join(output, "runs", "run.html"), RUN_PAGE);
  rmSync(join(output, "_import", "components", "device-colors.c57c4af0.js"));
  assert.match(whyNotInPlace(manifest, root, output, inputs), /device-colors\.c57c4af0\.js is missing/);
  write(join(output, "_import", "components", "device-colors.c57c4af0.js"), COLORS_MODULE);
  rmSync(join(output, "_file", "data", "marts", "run_marts.ec40e3de.json"));
  assert.match(whyNotInPlace(manifest, root, output, inputs), /run_marts\.ec40e3de\.json is missing/);
});

test("the data the loaders read: unchanged while the warehouse file, its stamp, docs/sql.md and the part settings are", () => {
  const {project, root} = builtSite();
  const warehouse = join(project, "data", "warehouse", "iopscope.duckdb");
  write(warehouse, "DUCK");
  write(`${warehouse}.build.json`, '{"generation": 1}');
  write(join(project, "docs", "sql.md"), "## 1. Example\n");
  const env = {IOPSCOPE_HOME: project};
  const before = dataDigest(root, env);
  assert.equal(dataDigest(root, env), before, "nothing changed");
  assert.equal(dataDigest(root, {}), before, "the same paths found without IOPSCOPE_HOME (the folder above the site root)");
  const changes = [
    () => { write(`${warehouse}.new`, "DUCK"); renameSync(`${warehouse}.new`, warehouse); }, // another file, same bytes
    () => write(`${warehouse}.wal`, "log"),
    () => write(`${warehouse}.build.json`, '{"generation": 2}'),
    () => write(join(project, "docs", "sql.md"), "## 1. Another example\n")
  ];
  let last = before;
  for (const change of changes) {
    change();
    const now = dataDigest(root, env);
    assert.notEqual(now, last, String(change));
    last = now;
  }
  assert.notEqual(dataDigest(root, {...env, IOPSCOPE_SITE_PART_ROWS: "500"}), last, "the part size");
  assert.notEqual(dataDigest(root, {...env, IOPSCOPE_WAREHOUSE: join(project, "other.duckdb")}), last, "another warehouse");
});
