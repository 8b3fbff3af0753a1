// The data files a build would copy from Framework's cache, linked into the output instead.
//
// The marts' downloads and the Parquet parts the run page reads by range (990 MB at 10,000
// runs) are members of data/marts.zip, which the loaders run side by side (loaders.js) write
// into Framework's cache, fresh. For each such dynamic path Framework would find the member
// fresh and copy it into the output: a gigabyte copied per build (2.7 s with `cp` at 10,000
// runs, where a hard link takes milliseconds). So the configuration's dynamicPaths hands
// Framework only what this module cannot place: a member that is missing or stale (its loader
// failed side by side, or is newer than it), which Framework then makes and copies as always.
// The rule for "fresh" is Framework's own (loader.js): the cached file is not older than its
// loader. A hard link shares the cached file's bytes; the part cache replaces files by rename,
// never in place, so a linked file never changes under the site.
import {copyFileSync, linkSync, mkdirSync, renameSync, statSync, unlinkSync} from "node:fs";
import {dirname, join} from "node:path";
import {INTERPRETERS, isFresh} from "./loaders.js";

/**
 * The archive member behind a dynamic path: /data/<archive>/<member> is member <member> of
 * <root>/data/<archive>.zip.py's output, cached at <root>/.observablehq/cache/data/<archive>/<member>.
 * null for any other path.
 */
export function cachedMember(root, path) {
  const match = /^\/data\/([^/]+)\/(.+)$/.exec(path);
  if (!match || match[2].split("/").includes("..")) return null;
  const loader = join(root, "data", `${match[1]}.zip.py`);
  return {loader, cached: join(root, ".observablehq", "cache", "data", match[1], match[2])};
}

/**
 * The file Framework's build would copy for `path` when it needs no loader to run: a static file
 * under `root`, or the fresh output of a loader or of an archive's loader in Framework's cache
 * (the loaders run side by side leave theirs so); null otherwise (Framework's own resolution,
 * which may run or extract, is then needed). Framework looks in the same order (loader.js find).
 */
export function freshSource(root, path) {
  if (path.split("/").includes("..")) return null;
  const file = join(root, path);
  if (isFile(file)) return file;
  for (const ext of Object.keys(INTERPRETERS)) {
    if (!isFile(`${file}${ext}`)) continue;
    const cached = join(root, ".observablehq", "cache", path);
    return isFresh(cached, `${file}${ext}`) ? cached : null;
  }
  const member = cachedMember(root, path);
  return member && isFresh(member.cached, member.loader) ? member.cached : null; // (no loader: not fresh)
}

/** The stat of `path`, or null when there is nothing there (or it cannot be read). */
export function statOrNull(path) {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

const isFile = (path) => statOrNull(path)?.isFile() ?? false;

/**
 * Links each of `paths` whose cached member is fresh into `output` (a copy where a link cannot
 * be made, e.g. another file system); returns {linked, bytes, rest}: `rest` the paths left to
 * Framework, in their order.
 */
export function linkFreshFiles(root, output, paths) {
  const rest = [];
  let linked = 0;
  let bytes = 0;
  for (const path of paths) {
    const member = cachedMember(root, path);
    if (!member || !isFresh(member.cached, member.loader)) {
      rest.push(path);
      continue;
    }
    linked += 1;
    bytes += placeFile(member.cached, join(output, path));
  }
  return {linked, bytes, rest};
}

/**
 * `source` hard-linked at `target` (a copy where a link cannot be made, e.g. another file
 * system), replacing what was there (an output root outside the working directory is not
 * cleared, and an update in place rewrites a served site): made beside it and renamed over it,
 * so a reader gets the old file or the new one, never none. Returns its size in bytes.
 */
export function placeFile(source, target) {
  mkdirSync(dirname(target), {recursive: true});
  const now = statSync(source);
  const there = statOrNull(target);
  // already this very file (a part an earlier build linked): nothing to do, and renaming a link
  // over another link of the same file would leave the temporary name behind (rename(2))
  if (there && there.ino === now.ino && there.dev === now.dev) return there.size;
  const temp = `${target}.iopscope-${process.pid}`;
  try {
    unlinkSync(temp); // left by a build that was killed
  } catch {
    // not there: the usual case
  }
  try {
    linkSync(source, temp);
  } catch {
    copyFileSync(source, temp);
  }
  renameSync(temp, target);
  return statSync(target).size;
}
