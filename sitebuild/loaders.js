// The site's data loaders side by side, before Framework asks for their files.
//
// Framework 1.13 runs a data loader when the build first copies one of its files, and it copies
// files one after another: at 10,000 runs marts.zip (~14 s), pages.zip (~12 s),
// warehouse.duckdb.gz (~4 s) and catalog.json (~1 s) ran end to end, ~32 s of a 62 s build, on a
// machine with two cores. Started here, all at once, as soon as the configuration is read, they
// run while Framework reads the pages, and each output lands where Framework caches it
// (<root>/.observablehq/cache/data/<name>), newer than its loader: Framework then finds it
// "fresh" and only copies it. The rule for what to run is Framework's own: an output that is
// missing or older than its loader. A loader that fails leaves no output, so Framework runs it
// again and reports its error the way it always does: the build fails as before.
import {spawn} from "node:child_process";
import {closeSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync} from "node:fs";
import {join} from "node:path";

// How Framework runs a loader by its extension (its default interpreters; this site sets none).
export const INTERPRETERS = {".py": ["python3"], ".js": ["node"], ".sh": ["sh"]};

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

/** Framework's rule (its loader.js): a cached output is fresh when it exists and is not older than its loader. */
export function isFresh(output, loader) {
  const built = mtime(output);
  const source = mtime(loader);
  return built !== null && source !== null && built >= source;
}

/**
 * The loaders of `<root>/data/` whose output Framework would run them for: [{name, loader,
 * output, command}], `name` the file a page reads (marts.zip for marts.zip.py). Files whose name
 * starts with "_" are modules the loaders import, not loaders.
 */
export function staleLoaders(root) {
  const folder = join(root, "data");
  let entries;
  try {
    entries = readdirSync(folder, {withFileTypes: true});
  } catch {
    return [];
  }
  const out = [];
  for (const entry of entries) {
    if (!entry.isFile() || entry.name.startsWith("_") || entry.name.startsWith(".")) continue;
    const extension = Object.keys(INTERPRETERS).find((ext) => entry.name.endsWith(ext));
    if (!extension) continue;
    const name = entry.name.slice(0, -extension.length);
    if (!name.includes(".")) continue; // a loader names its output: <file>.<ext>.py
    const loader = join(folder, entry.name);
    const output = join(root, ".observablehq", "cache", "data", name);
    if (isFresh(output, loader)) continue;
    out.push({name, loader, output, command: [...INTERPRETERS[extension], loader]});
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** Runs one loader into a temporary file beside its output and renames it there on success. */
function runLoader({name, loader, output, command}, env) {
  mkdirSync(join(output, ".."), {recursive: true});
  const temp = `${output}.iopscope-${process.pid}`;
  const fd = openSync(temp, "w");
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    // A command that cannot start emits "error" and then "close" (exit -2): settle once, or the
    // second call closes the file twice and throws out of the event handler, ending the build.
    const finish = (ok, detail) => {
      if (settled) return;
      settled = true;
      closeSync(fd);
      const ms = Math.round(performance.now() - started);
      if (ok) renameSync(temp, output);
      else {
        try {
          unlinkSync(temp);
        } catch {
          // already gone
        }
      }
      resolve({name, loader, ok, ms, detail, bytes: ok ? statSync(output).size : 0});
    };
    const child = spawn(command[0], command.slice(1), {env, stdio: ["ignore", fd, "inherit"], windowsHide: true});
    child.on("error", (error) => finish(false, error.message));
    child.on("close", (code, signal) => finish(code === 0, code === 0 ? null : `exit ${code ?? signal}`));
  });
}

/**
 * Every stale loader of `root`, all started at once; resolves (never rejects) to one result per
 * loader: {name, ok, ms, bytes, detail}.
 */
export function runLoadersSideBySide(root, {env = process.env} = {}) {
  // Their archives' file members go to Framework's cache only, where the build finds them fresh
  // (src/data/_sitedata.py write_zip_stream_cached): no gigabyte written into an archive unread.
  const sideBySide = {...env, IOPSCOPE_ARCHIVE_FILES_CACHE_ONLY: "1"};
  return Promise.all(staleLoaders(root).map((entry) => runLoader(entry, sideBySide)));
}

/** One line per loader, for the build's log (bench/run.py reads the times). */
export function describeLoaderRuns(results) {
  return results
    .map(({name, ok, ms, bytes, detail}) =>
      ok
        ? `iopscope: data loader /data/${name} ran side by side: ${bytes} bytes in ${ms}ms`
        : `iopscope: data loader /data/${name} failed side by side (${detail}) in ${ms}ms; Framework runs it again`)
    .join("\n");
}
