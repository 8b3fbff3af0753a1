// The data files the site serves under stable names (the marts' downloads and the Parquet parts
// the run page reads by range) depend on what the warehouse holds, which a data loader cannot
// tell Framework: src/data/_paths.py (venv Python, reads the marts of $IOPSCOPE_WAREHOUSE) lists
// them, and so does the marts loader that writes them (builtDynamicPaths, once the loaders ran).
// The configuration's dynamicPaths and the in-place update (update.js) both ask here.
import {execFile} from "node:child_process";
import {existsSync, mkdirSync, readFileSync, writeFileSync} from "node:fs";
import {dirname, join, resolve} from "node:path";
import {promisify} from "node:util";
import {freshSource} from "./link-files.js";

/**
 * The dynamic paths of `root`'s site, from its data/_paths.py. No warehouse yet -> []. Any
 * failure rejects: a warning here once let a build finish without any run data (ENOBUFS at
 * 10,000 runs). Asynchronous, so loaders and Framework's reading of the pages go on meanwhile.
 */
export async function warehousePaths(root) {
  const venv = join(process.cwd(), ".venv", "bin", "python");
  const python = process.env.IOPSCOPE_PYTHON || (existsSync(venv) ? venv : "python3");
  const script = resolve(root, "data", "_paths.py");
  let out;
  try {
    let stderr;
    ({stdout: out, stderr} = await promisify(execFile)(python, [script], {
      encoding: "utf-8",
      timeout: 600000,
      // The 1 MiB default overflowed at 10,000 runs (ENOBUFS); ~60 bytes per run.
      maxBuffer: 256 * 1024 * 1024
    }));
    if (stderr) process.stderr.write(stderr);
  } catch (error) {
    const said = String(error.stderr ?? "").trim().split("\n").slice(-5).join("\n");
    throw new Error(`iopscope: ${script} failed, so the build cannot know the run data and downloads to write: ${error.message.split("\n")[0]}${said ? `\n${said}` : ""}`);
  }
  const paths = JSON.parse(out);
  if (!Array.isArray(paths)) throw new Error(`iopscope: ${script} printed ${typeof paths}, not a list of paths`);
  return paths;
}

/**
 * The dynamic paths as the marts loader listed them (its member dynamic_paths.json, fresh in
 * Framework's cache: src/data/marts.zip.py writes the same list as _paths.py, which then need
 * not run, ~0.5 s of CPU at 10,000 runs while the loaders run), or null.
 */
function listedDynamicPaths(root) {
  const file = freshSource(root, "/data/marts/dynamic_paths.json");
  return file ? readPathList(file) : null;
}

/** The dynamic paths once the loaders ran: as the marts loader listed them, else from _paths.py. */
export async function builtDynamicPaths(root) {
  return listedDynamicPaths(root) ?? warehousePaths(root);
}

/** Where a build notes the dynamic paths it wrote, for the next in-place update (update.js). */
export function dynamicPathsRecord(root) {
  return join(root, ".observablehq", "cache", "iopscope-dynamic-paths.json");
}

export function recordDynamicPaths(root, paths) {
  const file = dynamicPathsRecord(root);
  mkdirSync(dirname(file), {recursive: true});
  writeFileSync(file, JSON.stringify(paths));
}

export function readDynamicPaths(root) {
  return readPathList(dynamicPathsRecord(root));
}

/** The JSON list of paths in `file`, or null (missing, unreadable, not a list). */
function readPathList(file) {
  try {
    const paths = JSON.parse(readFileSync(file, "utf-8"));
    return Array.isArray(paths) ? paths : null;
  } catch {
    return null;
  }
}
