// sitebuild/loaders.js: the data loaders run side by side into Framework's cache before the build
// copies their files, under Framework's own rule for what is stale.
import assert from "node:assert/strict";
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {after, test} from "node:test";
import {describeLoaderRuns, runLoadersSideBySide, staleLoaders} from "../../sitebuild/loaders.js";

const made = [];
after(() => made.forEach((dir) => rmSync(dir, {recursive: true, force: true})));

function siteRoot(loaders) {
  const root = mkdtempSync(join(tmpdir(), "iopscope-loaders-"));
  made.push(root);
  mkdirSync(join(root, "data"));
  for (const [name, text] of Object.entries(loaders)) writeFileSync(join(root, "data", name), text);
  return root;
}

const cached = (root, name) => join(root, ".observablehq", "cache", "data", name);

// Each of the two waits (up to 20 s) for the other to have started: both succeed only when they
// run at the same time, never when one waits for the other to end.
const waitsFor = (mine, theirs) => `touch "$MEETING/${mine}"
i=0; while [ ! -e "$MEETING/${theirs}" ]; do i=$((i+1)); [ $i -gt 200 ] && exit 7; sleep 0.1; done
echo "${mine} met ${theirs}"
`;

test("every loader runs at the same time as the others, into Framework's cache", async () => {
  const meeting = mkdtempSync(join(tmpdir(), "iopscope-meeting-"));
  made.push(meeting);
  const root = siteRoot({"a.txt.sh": waitsFor("a", "b"), "b.txt.sh": waitsFor("b", "a")});
  const results = await runLoadersSideBySide(root, {env: {...process.env, MEETING: meeting}});
  assert.deepEqual(results.map(({name, ok}) => [name, ok]), [["a.txt", true], ["b.txt", true]]);
  assert.equal(readFileSync(cached(root, "a.txt"), "utf-8"), "a met b\n");
  assert.equal(readFileSync(cached(root, "b.txt"), "utf-8"), "b met a\n");
  assert.match(describeLoaderRuns(results), /^iopscope: data loader \/data\/a\.txt ran side by side: 8 bytes in \d+ms$/m);
});

test("loaders run side by side are told their archives' file members go to the cache only", async () => {
  // src/data/_sitedata.py write_zip_stream_cached: a build finds them fresh there; Framework's
  // own runs of a loader (preview, a failed side-by-side run) keep complete archives
  const root = siteRoot({"env.txt.sh": 'echo "files ${IOPSCOPE_ARCHIVE_FILES_CACHE_ONLY:-in the archive}"\n'});
  const [result] = await runLoadersSideBySide(root, {env: {...process.env, IOPSCOPE_ARCHIVE_FILES_CACHE_ONLY: ""}});
  assert.equal(result.ok, true);
  assert.equal(readFileSync(cached(root, "env.txt"), "utf-8"), "files 1\n");
});

test("a failing loader leaves no output (Framework runs it again and reports it) and stops no other", async () => {
  const root = siteRoot({"bad.json.sh": "echo '{\"half\":'\nexit 3\n", "good.json.sh": "echo '[1]'\n"});
  const results = await runLoadersSideBySide(root);
  assert.deepEqual(results.map(({name, ok, detail}) => [name, ok, detail]), [["bad.json", false, "exit 3"], ["good.json", true, null]]);
  assert.equal(existsSync(cached(root, "bad.json")), false);
  assert.equal(readFileSync(cached(root, "good.json"), "utf-8"), "[1]\n");
  assert.deepEqual(readdirSync(join(root, ".observablehq", "cache", "data")), ["good.json"]); // no temporary file left
  assert.match(describeLoaderRuns(results), /\/data\/bad\.json failed side by side \(exit 3\)/);
});

test("a loader whose interpreter cannot start fails like any other, once, and leaves no file", async () => {
  const root = siteRoot({"gone.json.sh": "echo 1\n"});
  // no sh on this PATH: the spawn fails (ENOENT), which Node reports as "error" and then "close"
  const results = await runLoadersSideBySide(root, {env: {PATH: join(root, "no-such-bin")}});
  assert.equal(results.length, 1);
  assert.equal(results[0].ok, false);
  assert.match(results[0].detail, /ENOENT/);
  assert.deepEqual(readdirSync(join(root, ".observablehq", "cache", "data")), []);
});

test("only what Framework would run: a missing output or one older than its loader; helpers are not loaders", async () => {
  const root = siteRoot({"x.json.sh": "echo 1\n", "y.json.sh": "echo 2\n", "_helper.py": "raise SystemExit(1)\n", "notes.sh": "exit 1\n"});
  assert.deepEqual(staleLoaders(root).map(({name}) => name), ["x.json", "y.json"]);
  await runLoadersSideBySide(root);
  assert.deepEqual(staleLoaders(root), []);
  // y's loader edited after its output was written: stale again, x stays fresh
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(root, "data", "y.json.sh"), later, later);
  assert.deepEqual(staleLoaders(root).map(({name}) => name), ["y.json"]);
  assert.deepEqual((await runLoadersSideBySide(root)).map(({name}) => name), ["y.json"]);
});

test("a site without a data folder has nothing to run", async () => {
  const root = mkdtempSync(join(tmpdir(), "iopscope-loaders-"));
  made.push(root);
  assert.deepEqual(await runLoadersSideBySide(root), []);
});
