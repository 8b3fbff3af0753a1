// A site build that refreshes the data of the last full build in place, without Framework.
//
// After one new run nothing a page is made of changes but its data: the pages, components and
// npm bundles are the same, only the loaders' outputs differ. Framework's build writes every
// page and file again all the same (~3 s at 10,000 runs after the loaders, ~1 s of it at any
// size). What a full build would change in that case is small and known, and done here:
//
// * a file a page names (FileAttachment: data/pages/*.json, catalog.json, the SQL console's
//   database, the marts' index) is copied under a name with its content's hash,
//   _file/<path>.<sha256[:8]>.<ext> (Framework's build.js applyHash), and each page registers
//   it in its HTML: registerFile("<name>", {"name", "mimeType", "path", "lastModified", "size"}).
//   A file whose content changed gets its new hashed copy, and the registrations that name it
//   are rewritten; an unchanged file keeps its copy and registration (lastModified then stays
//   that of the build that first wrote these bytes);
// * the dynamic paths (data/marts/..., src/data/_paths.py) are linked from the loaders' cache
//   again, and those the warehouse no longer lists are removed;
// * a module that names a changed file (device-colors.js names device_colors.json) embeds its
//   registration too, and its hashed name changes with it; so do the names of the modules that
//   import it, and so on up: each is rewritten under <name>.<sha256[:8] of its new text>.js,
//   dependencies first, and the pages that import or preload any of them are rewritten.
//
// When the data the loaders read is that of the last build too (the warehouse file untouched:
// dataDigest), nothing runs and nothing is written. Anything else makes a full build (build.js): no record of a full build of this output
// (<root>/.observablehq/cache/iopscope-site.json, written after each one), any change to the
// sources under <root>, the configuration, sitebuild/ or the installed packages (one digest of
// all of them), a page or module in the output not as the last build left it, a loader that
// failed, modules that import each other in a cycle. The equality of an in-place update and a
// full build of the same warehouse is tested (tests/browser/site-update.test.mjs); the names of
// rewritten modules differ from Framework's own (its hash mixes in the data files' times), which
// gives its full builds new module names at every build anyway.
import {createHash} from "node:crypto";
import {existsSync, readFileSync, readdirSync, renameSync, rmSync, rmdirSync, statSync, unlinkSync, writeFileSync} from "node:fs";
import {dirname, join, posix, relative, resolve} from "node:path";
import {freshSource, placeFile, statOrNull} from "./link-files.js";
import {describeLoaderRuns, runLoadersSideBySide} from "./loaders.js";
import {builtDynamicPaths, readDynamicPaths} from "./warehouse-paths.js";

const MANIFEST_VERSION = 1;
// Framework's top-level output folders that hold no page
const NOT_PAGES = new Set(["_file", "_import", "_node", "_npm", "_observablehq", "_jsr", "data"]);
// registerFile("<name>", {...}); as Framework's render.js writes it into a page
const REGISTER = /registerFile\(("(?:[^"\\]|\\.)*"), (\{(?:[^{}"]|"(?:[^"\\]|\\.)*")*\})\);/g;
// FileAttachment({...}, import.meta.url) as its transpile.js writes it into a module
const ATTACH = /FileAttachment\((\{"name":(?:[^{}"]|"(?:[^"\\]|\\.)*")*\}), import\.meta\.url\)/g;
// Framework's loaders write their progress here; an update reports in one line of its own instead
const QUIET = {output: {write() {}}, logger: {log() {}, warn() {}, error() {}}};

/** Where the last full build of `root` is recorded. */
export function manifestPath(root) {
  return join(root, ".observablehq", "cache", "iopscope-site.json");
}

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/** Framework's name for a file it copies into the output (build.js applyHash): <name>.<sha256[:8]><ext>. */
export function hashedName(path, contents) {
  const ext = posix.extname(path);
  const name = posix.basename(path, ext);
  return posix.join(posix.dirname(path), `${name && `${name}.`}${sha256(contents).slice(0, 8)}${ext}`);
}

/** Every file under `dir`, as paths relative to it (posix), sorted; folders named in `skip` are not entered. */
export function filesUnder(dir, skip = () => false, prefix = "") {
  let entries;
  try {
    entries = readdirSync(join(dir, prefix), {withFileTypes: true});
  } catch {
    return [];
  }
  const out = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!skip(rel)) out.push(...filesUnder(dir, skip, rel));
    } else if (entry.isFile() || entry.isSymbolicLink()) out.push(rel);
  }
  return out;
}

/**
 * One digest of everything a full build's pages and modules are made of, apart from the data:
 * the sources under `root` (pages, components, loaders' code, styles), the configuration and
 * sitebuild/ of `project`, the installed packages' lock, Framework's version, node's version, and
 * where the site is built from and to.
 */
export function siteInputsDigest(root, output, project = process.cwd()) {
  const hash = createHash("sha256");
  const add = (label, file) => {
    hash.update(`${label}\0`);
    try {
      hash.update(readFileSync(file));
    } catch {
      hash.update("(missing)");
    }
    hash.update("\0");
  };
  for (const rel of filesUnder(root, (name) => name === ".observablehq")) add(`root/${rel}`, join(root, rel));
  for (const rel of filesUnder(join(project, "sitebuild"))) add(`sitebuild/${rel}`, join(project, "sitebuild", rel));
  for (const rel of ["observablehq.config.js", "package.json", "node_modules/.package-lock.json", "node_modules/@observablehq/framework/package.json"]) {
    add(rel, join(project, rel));
  }
  hash.update(`${resolve(root)}\0${resolve(output)}\0${process.version}`);
  return hash.digest("hex");
}

// What the loaders read besides their own code (which the digest above covers) and the
// warehouse: the SQL page's examples (docs/sql.md) and the settings of how parts are cut and
// cached (src/data/_run_parquet.py, _device_pages.py).
const DATA_ENV = ["IOPSCOPE_SITE_PART_ROWS", "IOPSCOPE_SITE_PARTS_DIR", "IOPSCOPE_SITE_PAGES_DIR"];

/**
 * One digest of the data the loaders would read now: the warehouse file as it is (path, size,
 * time and inode of the file and of its write-ahead log, its build stamp beside it: any write
 * changes them), docs/sql.md, the settings above. Equal to the last build's: the loaders would
 * write what they wrote then, and the site is up to date. Paths as src/data/_sitedata.py finds
 * them: $IOPSCOPE_HOME (else the folder above the site root), $IOPSCOPE_WAREHOUSE (else
 * <home>/data/warehouse/iopscope.duckdb).
 */
export function dataDigest(root, env = process.env) {
  const home = resolve(env.IOPSCOPE_HOME || join(root, ".."));
  const warehouse = resolve(env.IOPSCOPE_WAREHOUSE || join(home, "data", "warehouse", "iopscope.duckdb"));
  const identity = (path) => {
    const stat = statOrNull(path);
    return stat && [stat.size, stat.mtimeMs, stat.ino, stat.dev];
  };
  const text = (path) => {
    try {
      return sha256(readFileSync(path));
    } catch {
      return null;
    }
  };
  return sha256(JSON.stringify({
    warehouse, file: identity(warehouse), wal: identity(`${warehouse}.wal`), stamp: text(`${warehouse}.build.json`),
    sqlDocs: text(join(home, "docs", "sql.md")), env: DATA_ENV.map((name) => env[name] ?? null)
  }));
}

/** The pages of `output` (its .html files outside Framework's asset folders), relative, posix. */
function pagesOf(output) {
  return filesUnder(output, (name) => NOT_PAGES.has(name)).filter((rel) => rel.endsWith(".html"));
}

/** A page's or module's relative form of an absolute path (Framework's relativePath: "./x", "../x"). */
function relativeFrom(dir, path) {
  const rel = posix.relative(dir, path);
  return rel.startsWith("../") ? rel : `./${rel}`;
}

/**
 * The files a page registers: [{name, alias, lastModified, size}], `name` the absolute path a
 * page reads (/data/pages/home.json), `alias` the absolute path of its hashed copy.
 */
export function registeredFiles(text, pageRel) {
  const dir = posix.dirname(`/${pageRel}`);
  return [...text.matchAll(REGISTER)].map((match) => {
    const info = JSON.parse(match[2]);
    return {name: posix.resolve(dir, info.name), alias: posix.resolve(dir, info.path), lastModified: info.lastModified, size: info.size};
  });
}

/** The files a transpiled module names with FileAttachment: absolute names. */
export function attachedFiles(text, moduleRel) {
  const dir = posix.dirname(`/${moduleRel}`);
  return [...text.matchAll(ATTACH)].map((match) => posix.resolve(dir, JSON.parse(match[1]).name));
}

/**
 * `text` (a page at `pageRel`) with the registration of each file in `changes` (absolute name ->
 * {alias, lastModified, size}) pointing at its new copy; every other byte as it was.
 */
export function rewriteRegistrations(text, pageRel, changes) {
  const dir = posix.dirname(`/${pageRel}`);
  return text.replace(REGISTER, (whole, nameJson, infoJson) => {
    const info = JSON.parse(infoJson);
    const change = changes.get(posix.resolve(dir, info.name));
    if (!change) return whole;
    return `registerFile(${nameJson}, ${JSON.stringify(moved(info, dir, change))});`;
  });
}

/** The same for the FileAttachment calls of a module at `moduleRel`. */
export function rewriteAttachments(text, moduleRel, changes) {
  const dir = posix.dirname(`/${moduleRel}`);
  return text.replace(ATTACH, (whole, infoJson) => {
    const info = JSON.parse(infoJson);
    const change = changes.get(posix.resolve(dir, info.name));
    if (!change) return whole;
    return `FileAttachment(${JSON.stringify(moved(info, dir, change))}, import.meta.url)`;
  });
}

/** A file's registration pointing at its new copy (the keys in Framework's order, kept). */
function moved(info, dir, change) {
  return {...info, path: relativeFrom(dir, change.alias), lastModified: change.lastModified, size: change.size};
}

/** `text` with each renamed module (old path -> new path, both under one folder) named by its new name. */
export function renameModules(text, renames) {
  let out = text;
  for (const [from, to] of renames) out = out.split(`/${posix.basename(from)}"`).join(`/${posix.basename(to)}"`);
  return out;
}

/** A module's output name for `text`: its name with the hash of `text` (<name>.<sha256[:8]>.js). */
export function rehashedModule(rel, text) {
  const match = /^(.*)\.[0-9a-f]{8}\.js$/.exec(rel);
  return hashedName(`${match ? match[1] : rel.replace(/\.js$/, "")}.js`, text);
}

/**
 * The modules to rewrite when the files `changed` (absolute names) change, dependencies first:
 * those that name one of the files, and every module that imports one of those, and so on up.
 * `modules`: path -> text of every module under _import. null when they import each other in
 * a cycle among them (then a full build).
 */
export function modulesToRewrite(modules, named) {
  const importers = new Map([...modules.keys()].map((rel) => [rel, []]));
  for (const [rel, text] of modules) {
    for (const other of modules.keys()) {
      if (other !== rel && text.includes(`/${posix.basename(other)}"`)) importers.get(other).push(rel);
    }
  }
  const affected = new Set();
  const visit = (rel) => {
    if (affected.has(rel)) return;
    affected.add(rel);
    for (const up of importers.get(rel) ?? []) visit(up);
  };
  for (const rel of named) visit(rel);
  // dependencies first: a module after every affected module it imports
  const order = [];
  const state = new Map();
  const place = (rel) => {
    if (state.get(rel) === "done") return true;
    if (state.get(rel) === "open") return false;
    state.set(rel, "open");
    for (const dep of affected) {
      if (dep !== rel && importers.get(dep).includes(rel) && !place(dep)) return false;
    }
    state.set(rel, "done");
    order.push(rel);
    return true;
  };
  for (const rel of [...affected].sort()) if (!place(rel)) return null;
  return order;
}

/**
 * The record of a full build of `root` into `output` that an update starts from, or null with
 * the reason when the output cannot be updated in place later (then the next build is full).
 */
export function describeBuild(root, output, inputs, data = null) {
  const dynamic = readDynamicPaths(root);
  if (!dynamic) return {manifest: null, reason: "the build did not note its dynamic paths"};
  const pages = {};
  const modules = {};
  const files = {};
  try {
    for (const rel of pagesOf(output)) {
      const text = readFileSync(join(output, rel));
      pages[rel] = sha256(text);
      for (const file of registeredFiles(text.toString("utf-8"), rel)) {
        const entry = (files[file.name] ??= {alias: file.alias, lastModified: file.lastModified, size: file.size, pages: [], modules: []});
        if (entry.alias !== file.alias) return {manifest: null, reason: `${file.name} registered as ${entry.alias} and ${file.alias}`};
        entry.pages.push(rel);
      }
    }
    for (const rel of filesUnder(join(output, "_import")).filter((name) => name.endsWith(".js")).map((name) => `_import/${name}`)) {
      const text = readFileSync(join(output, rel));
      modules[rel] = sha256(text);
      for (const name of attachedFiles(text.toString("utf-8"), rel)) {
        if (!files[name]) return {manifest: null, reason: `${rel} names ${name}, which no page registers`};
        files[name].modules.push(rel);
      }
    }
  } catch (error) {
    return {manifest: null, reason: `a page or module of ${output} could not be read: ${error.message}`};
  }
  return {manifest: {version: MANIFEST_VERSION, inputs, data, output: resolve(output), pages, modules, files, dynamic}, reason: null};
}

export function readManifest(root) {
  try {
    const manifest = JSON.parse(readFileSync(manifestPath(root), "utf-8"));
    return manifest?.version === MANIFEST_VERSION ? manifest : null;
  } catch {
    return null;
  }
}

export function writeManifest(root, manifest) {
  const file = manifestPath(root);
  writeFileSync(`${file}.tmp`, JSON.stringify(manifest));
  renameSync(`${file}.tmp`, file);
}

export function forgetManifest(root) {
  try {
    unlinkSync(manifestPath(root));
  } catch {
    // none
  }
}

/** Why the last full build's output cannot be updated in place now, or null when it can. */
export function whyNotInPlace(manifest, root, output, inputs) {
  if (!manifest) return "no record of a full build of this site";
  if (manifest.output !== resolve(output)) return `the last full build wrote to ${manifest.output}`;
  if (manifest.inputs !== inputs) return "the site's sources, configuration or packages changed since the last full build";
  for (const [rel, digest] of Object.entries({...manifest.pages, ...manifest.modules})) {
    let text;
    try {
      text = readFileSync(join(output, rel));
    } catch {
      return `${rel} is missing from ${output}`;
    }
    if (sha256(text) !== digest) return `${rel} in ${output} is not as the last build wrote it`;
  }
  for (const entry of Object.values(manifest.files)) {
    if (!existsSync(join(output, entry.alias))) return `${entry.alias} is missing from ${output}`;
  }
  return null;
}

/** Removes `path` and then each parent folder it leaves empty, up to (not including) `top`. */
function removeWithEmptyParents(path, top) {
  try {
    unlinkSync(path);
  } catch {
    return;
  }
  for (let dir = dirname(path); relative(top, dir) && !relative(top, dir).startsWith(".."); dir = dirname(dir)) {
    try {
      rmdirSync(dir);
    } catch {
      break; // not empty
    }
  }
}

/** Writes `text` at `path` whole: a reader sees the old text or the new one. */
function replaceText(path, text) {
  writeFileSync(`${path}.iopscope-tmp`, text);
  renameSync(`${path}.iopscope-tmp`, path);
}

/**
 * Updates the full build of `root` in `output` in place for the data its loaders write now.
 * Resolves to {updated: true, ...figures} or {updated: false, reason} (then nothing in `output`
 * was touched, and the loaders' outputs a full build reuses are in the cache). Rejects where a
 * full build would fail too (src/data/_paths.py failing).
 */
export async function updateInPlace(root, output, {project = process.cwd(), log = (line) => process.stderr.write(`${line}\n`)} = {}) {
  const started = performance.now();
  const inputs = siteInputsDigest(root, output, project);
  const manifest = readManifest(root);
  const reason = whyNotInPlace(manifest, root, output, inputs);
  if (reason) return {updated: false, reason};
  const data = dataDigest(root);
  if (manifest.data === data) return {updated: true, upToDate: true, ms: Math.round(performance.now() - started)};
  // The data changed: every loader runs again, whatever its outputs' times (Framework's own rule
  // reruns a loader only when its code changed, so `npm run build` kept the old data; `iopscope
  // build` clears them itself, pipeline.site)
  rmSync(join(root, ".observablehq", "cache", "data"), {recursive: true, force: true});

  const runs = await runLoadersSideBySide(root);
  const report = describeLoaderRuns(runs);
  if (report) log(report);
  const failed = runs.find((run) => !run.ok);
  if (failed) return {updated: false, reason: `data loader /data/${failed.name} failed (${failed.detail})`};
  const dynamic = await builtDynamicPaths(root);

  // What the pages name: unchanged, or a new hashed copy. Each file is found where Framework's
  // build would take it (link-files.js freshSource: the loaders left every output fresh), else
  // by Framework's own resolution (half a second to import: its parsers come along).
  let resolver = null;
  const source = async (path) => {
    const fresh = freshSource(root, path);
    if (fresh) return fresh;
    resolver ??= new (await import("@observablehq/framework/dist/loader.js")).LoaderResolver({root});
    const loader = resolver.find(path);
    if (!loader) throw new Error(`iopscope: no file or data loader makes ${path}`);
    return join(root, await loader.load({useStale: true}, QUIET));
  };
  const changes = new Map();
  for (const [name, entry] of Object.entries(manifest.files)) {
    const file = await source(name);
    const alias = hashedName(posix.join("/_file", name), readFileSync(file));
    if (alias === entry.alias) continue;
    const {mtimeMs, size} = statSync(file);
    changes.set(name, {file, alias, lastModified: Math.floor(mtimeMs), size});
  }
  // The modules that name a changed file, and their importers, under new names
  const moduleTexts = new Map(Object.keys(manifest.modules).map((rel) => [rel, readFileSync(join(output, rel), "utf-8")]));
  const order = modulesToRewrite(moduleTexts, [...changes.keys()].flatMap((name) => manifest.files[name].modules));
  if (!order) return {updated: false, reason: "the modules that name a changed file import each other in a cycle"};
  const renames = new Map();
  const rewrittenModules = new Map();
  for (const rel of order) {
    const text = renameModules(rewriteAttachments(moduleTexts.get(rel), rel, changes), renames);
    const next = rehashedModule(rel, text);
    if (next !== rel) renames.set(rel, next);
    rewrittenModules.set(next, text);
  }
  const placed = [];
  for (const path of dynamic) placed.push([await source(path), path]);

  // Written in the order that keeps a page being read whole: data and modules first, then the
  // pages that name them, then what no page names any more.
  let bytes = 0;
  for (const [file, path] of placed) bytes += placeFile(file, join(output, path));
  for (const change of changes.values()) placeFile(change.file, join(output, change.alias));
  const modules = {...manifest.modules};
  for (const [rel, text] of rewrittenModules) {
    replaceText(join(output, rel), text);
    modules[rel] = sha256(text);
  }
  const pages = {...manifest.pages};
  let pagesRewritten = 0;
  for (const rel of Object.keys(pages)) {
    const before = readFileSync(join(output, rel), "utf-8");
    const text = renameModules(rewriteRegistrations(before, rel, changes), renames);
    if (text === before) continue;
    replaceText(join(output, rel), text);
    pages[rel] = sha256(text);
    pagesRewritten += 1;
  }
  const files = {};
  for (const [name, entry] of Object.entries(manifest.files)) {
    const change = changes.get(name);
    if (change) removeWithEmptyParents(join(output, entry.alias), output);
    files[name] = {...entry, ...(change && {alias: change.alias, lastModified: change.lastModified, size: change.size}),
      modules: entry.modules.map((rel) => renames.get(rel) ?? rel)};
  }
  for (const [from] of renames) {
    removeWithEmptyParents(join(output, from), output);
    delete modules[from];
  }
  const listed = new Set(dynamic);
  const gone = manifest.dynamic.filter((path) => !listed.has(path));
  for (const path of gone) removeWithEmptyParents(join(output, path), output);
  writeManifest(root, {...manifest, data, pages, modules, files, dynamic});
  return {
    updated: true, changedFiles: changes.size, modulesRewritten: rewrittenModules.size, pagesRewritten, linked: placed.length, bytes,
    removed: gone.length, ms: Math.round(performance.now() - started)
  };
}
