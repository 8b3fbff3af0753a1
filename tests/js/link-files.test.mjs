// sitebuild/link-files.js: the dynamic paths whose archive member is fresh in Framework's cache
// are linked into the output; anything else is left to Framework, which makes and copies it.
import assert from "node:assert/strict";
import {existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {dirname, join} from "node:path";
import {after, test} from "node:test";
import {cachedMember, linkFreshFiles, placeFile} from "../../sitebuild/link-files.js";

const made = [];
after(() => made.forEach((dir) => rmSync(dir, {recursive: true, force: true})));

function write(path, text, when) {
  mkdirSync(dirname(path), {recursive: true});
  writeFileSync(path, text);
  if (when) utimesSync(path, when, when);
}

test("fresh members are linked (same file), stale and missing ones and other paths go to Framework", () => {
  const base = mkdtempSync(join(tmpdir(), "iopscope-link-"));
  made.push(base);
  const root = join(base, "src");
  const output = join(base, "dist");
  const hourAgo = new Date(Date.now() - 3_600_000);
  write(join(root, "data", "marts.zip.py"), "# loader\n", hourAgo);
  const cache = join(root, ".observablehq", "cache", "data", "marts");
  write(join(cache, "a.csv"), "x\n1\n");
  write(join(cache, "big", "part-1.parquet"), "PAR1");
  write(join(cache, "old.csv"), "x\n", new Date(Date.now() - 7_200_000)); // older than its loader: stale
  write(join(output, "data", "marts", "a.csv"), "a previous build's bytes\n"); // an output root not cleared
  const paths = ["/data/marts/a.csv", "/data/marts/big/part-1.parquet", "/data/marts/old.csv",
                 "/data/marts/missing.csv", "/data/other.json", "/data/nozip/x.csv", "/data/marts/../escape.csv"];
  const {linked, bytes, rest} = linkFreshFiles(root, output, paths);
  assert.equal(linked, 2);
  assert.equal(bytes, 4 + 4);
  assert.deepEqual(rest, ["/data/marts/old.csv", "/data/marts/missing.csv", "/data/other.json", "/data/nozip/x.csv",
                          "/data/marts/../escape.csv"]);
  for (const name of ["a.csv", join("big", "part-1.parquet")]) {
    const target = join(output, "data", "marts", name);
    assert.equal(statSync(target).ino, statSync(join(cache, name)).ino, `${name} is a link to the cached file`);
  }
  assert.equal(readFileSync(join(output, "data", "marts", "a.csv"), "utf-8"), "x\n1\n");
  assert.equal(existsSync(join(output, "data", "marts", "old.csv")), false);
  assert.equal(cachedMember(root, "/data/x.csv"), null);
});

test("placeFile replaces a file through a new name renamed over it, and leaves a link of the same file alone", () => {
  const base = mkdtempSync(join(tmpdir(), "iopscope-place-"));
  made.push(base);
  const source = join(base, "cache", "part.parquet");
  write(source, "PAR1 new");
  const target = join(base, "dist", "data", "part.parquet");
  write(target, "PAR1 old bytes");
  assert.equal(placeFile(source, target), 8);
  assert.equal(readFileSync(target, "utf-8"), "PAR1 new");
  assert.equal(statSync(target).ino, statSync(source).ino);
  assert.equal(placeFile(source, target), 8, "again: already that file");
  assert.deepEqual(readdirSync(join(base, "dist", "data")), ["part.parquet"], "no temporary name left");
});
