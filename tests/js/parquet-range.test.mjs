// The run page reads a run's rows of a mart's Parquet file by HTTP range. With the layout the
// build records (src/data/_run_parquet.py file_layout: size, footer offset, per row group key
// range and page index offsets), footer and page index come in one round trip, the key column's
// pages in a second and the matched rows' pages of the other columns in a third (none when no
// row matched); a small file comes whole in one request; a file of another size than the
// layout says is read as without a layout. The file is written by the build's own code (venv
// Python, DuckDB + pyarrow) and served by a fake fetch that answers Range like a static host.
import assert from "node:assert/strict";
import {spawnSync} from "node:child_process";
import {mkdtempSync, readFileSync, rmSync} from "node:fs";
import {tmpdir} from "node:os";
import {join, resolve} from "node:path";
import {after, before, describe, test} from "node:test";
import {layoutRanges, openRangeFile, readKeyedRows, rowRanges} from "../../src/components/parquet-range.js";

const ROOT = resolve(import.meta.dirname, "../..");
const PYTHON = join(ROOT, ".venv", "bin", "python");
// 40 runs x 30 samples, row groups of 256 rows, pages of 16 rows: a run's rows in one or two
// row groups of five, a few pages each.
const WRITE = `
import json, sys
sys.path.insert(0, ${JSON.stringify(join(ROOT, "src", "data"))})
import duckdb
import _run_parquet as rp
rp.ROW_GROUP_ROWS, rp.PAGE_ROWS = 256, 16
con = duckdb.connect()
con.execute("create schema marts")
con.execute("""create table marts.fct_samples as select printf('run-%03d', r) as run_id, t as t_s,
  r * 1000 + t * 1.5 as value, case when t % 2 = 0 then 'sda' else 'nvme0n1' end as device
  from range(40) a(r), range(30) b(t)""")
catalog = {"fct_samples": {"columns": [{"name": n, "type": t} for n, t in
  con.execute("select column_name, data_type from information_schema.columns where table_name = 'fct_samples' order by ordinal_position").fetchall()]}}
path = rp.write_keyed_parquet(con, catalog, "fct_samples", "run_id", sys.argv[1] + "/fct_samples.parquet")
import pyarrow.parquet as pq
meta = pq.ParquetFile(path).metadata
key_chunks = []
for g in range(meta.num_row_groups):
    c = meta.row_group(g).column(0)
    start = c.dictionary_page_offset if c.has_dictionary_page else c.data_page_offset
    key_chunks.append([start, start + c.total_compressed_size])
print(json.dumps({"path": str(path), "layout": rp.file_layout(path, "run_id"), "key_chunks": key_chunks}))
`;

let dir;
let bytes;
let layout;
let keyChunks; // [start, end) of the key column's chunk in each row group
before(() => {
  dir = mkdtempSync(join(tmpdir(), "iopscope-range-"));
  const out = spawnSync(PYTHON, ["-c", WRITE, dir], {encoding: "utf-8"});
  assert.equal(out.status, 0, out.stderr);
  const written = JSON.parse(out.stdout);
  bytes = readFileSync(written.path);
  layout = written.layout;
  keyChunks = written.key_chunks;
});
after(() => rmSync(dir, {recursive: true, force: true}));

/**
 * A static host over `data` answering Range (206 + Content-Range) after a tick. Each request
 * notes how many answers had arrived when it was made: requests made together share that
 * number, so the distinct numbers count the round trips.
 */
function host(data) {
  const log = [];
  let answered = 0;
  const fetchImpl = async (url, {headers}) => {
    const range = headers.Range;
    log.push({range, after: answered});
    await new Promise((r) => setTimeout(r, 5));
    const size = data.length;
    let m = /^bytes=-(\d+)$/.exec(range);
    let start;
    let end;
    if (m) [start, end] = [Math.max(0, size - Number(m[1])), size - 1];
    else if ((m = /^bytes=(\d+)-(\d*)$/.exec(range))) [start, end] = [Number(m[1]), Math.min(size - 1, m[2] ? Number(m[2]) : size - 1)];
    else throw new Error(`unexpected Range ${range}`);
    answered += 1;
    const body = data.subarray(start, end + 1);
    return new Response(body, {status: 206, headers: {"Content-Range": `bytes ${start}-${end}/${size}`}});
  };
  return {fetchImpl, log, roundTrips: () => new Set(log.map((r) => r.after)).size};
}

const expected = (run) => Array.from({length: 30}, (_, t) => ({run_id: run, t_s: t, value: Number(run.slice(4)) * 1000 + t * 1.5}));
const plain = (rows) => rows.map((r) => ({run_id: r.run_id, t_s: Number(r.t_s), value: r.value}));

describe("the build's layout of a keyed Parquet file", () => {
  test("names the file's size, its footer and each row group's keys and page index", () => {
    assert.equal(layout.size, bytes.length);
    assert.equal(bytes.readUInt32LE(bytes.length - 8), bytes.length - 8 - layout.footer, "the footer length the file states");
    assert.equal(layout.groups.length, 5); // 1,200 rows in row groups of 256
    assert.equal(layout.groups[0][0], "run-000");
    assert.equal(layout.groups.at(-1)[1], "run-039");
    for (const [, , columnIndex, offsetIndex] of layout.groups) {
      assert.ok(columnIndex[0] < columnIndex[1] && offsetIndex[0] < offsetIndex[1] && offsetIndex[1] <= layout.footer);
    }
  });

  test("a read plans the footer and the page index of only the row groups that may hold the run", () => {
    const ranges = layoutRanges(layout, "run-010", {wholeBelow: 0});
    assert.deepEqual(ranges[0], {start: layout.footer, end: layout.size});
    assert.equal(ranges.length, 1 + 2 * layout.groups.filter(([lo, hi]) => lo <= "run-010" && "run-010" <= hi).length);
    assert.deepEqual(layoutRanges(layout, "run-010"), [{start: 0, end: layout.size}], "a small file whole");
    assert.deepEqual(layoutRanges(layout, null, {wholeBelow: 0}), [{start: layout.footer, end: layout.size}]);
  });
});

describe("reading one run's rows by range", () => {
  test("with the layout: footer and page index in one round trip, the key's pages, then the run's rows of the other columns", async () => {
    const site = host(bytes);
    const file = await openRangeFile("/m.parquet", {fetchImpl: site.fetchImpl, layout, wholeBelow: 0});
    assert.equal(site.log.length, 0, "opening asks nothing: the layout knows the size");
    const rows = await readKeyedRows(file, "run_id", "run-010", {expectRows: 1200});
    assert.deepEqual(plain(rows), expected("run-010"));
    assert.equal(site.roundTrips(), 3, JSON.stringify(site.log));
    assert.ok(file.stats.bytes < bytes.length / 2, `read ${file.stats.bytes} of ${bytes.length} bytes`);
  });

  test("without it, the same rows take five round trips (footer, key's page index and pages, other columns' offset index and pages)", async () => {
    const site = host(bytes);
    // a tail that holds the footer, as 64 KB holds most marts' footers
    const file = await openRangeFile("/m.parquet", {fetchImpl: site.fetchImpl, tailBytes: layout.size - layout.footer + 64, wholeBelow: 0});
    const rows = await readKeyedRows(file, "run_id", "run-010", {expectRows: 1200});
    assert.deepEqual(plain(rows), expected("run-010"));
    assert.equal(site.roundTrips(), 5, JSON.stringify(site.log));
  });

  test("a run a page's key range spans but no row holds reads the key column's pages only", async () => {
    const site = host(bytes);
    const file = await openRangeFile("/m.parquet", {fetchImpl: site.fetchImpl, layout, wholeBelow: 0});
    // sorts between run-010 and run-011: the page index cannot rule it out, the key column can
    assert.deepEqual(await readKeyedRows(file, "run_id", "run-010a", {expectRows: 1200}), []);
    assert.equal(site.roundTrips(), 2, JSON.stringify(site.log));
    const [first, ...pages] = site.log;
    assert.equal(first.range, layoutRanges(layout, "run-010a", {wholeBelow: 0}).length === 1 ? `bytes=${layout.footer}-${layout.size - 1}` : first.range);
    assert.ok(pages.length > 0, "the key column's page was read");
    for (const {range} of pages) {
      const [start, end] = range.replace("bytes=", "").split("-").map(Number);
      if (start >= layout.footer || end < keyChunks[0][0]) continue; // the footer and page index of the first round trip
      assert.ok(keyChunks.some(([lo, hi]) => lo <= start && end < hi), `${range} lies outside the key column (${JSON.stringify(keyChunks)})`);
    }
  });

  test("matched rows are read in ranges joined where close", () => {
    assert.deepEqual(rowRanges([]), []);
    assert.deepEqual(rowRanges([3, 4, 5]), [[3, 6]]);

    assert.deepEqual(rowRanges([3, 10], 6), [[3, 11]], "six rows between");
    assert.deepEqual(rowRanges([3, 10], 5), [[3, 4], [10, 11]]);
  });

  test("a small file comes whole, in one request", async () => {
    const site = host(bytes);
    const file = await openRangeFile("/m.parquet", {fetchImpl: site.fetchImpl, layout});
    assert.deepEqual(plain(await readKeyedRows(file, "run_id", ["run-003", "run-039"], {expectRows: 1200})),
      [...expected("run-003"), ...expected("run-039")]);
    assert.deepEqual(site.log.map((r) => r.range), [`bytes=0-${bytes.length - 1}`]);
  });

  test("a file the layout does not describe is read by its own footer; another row count says reload", async () => {
    const site = host(bytes);
    const stale = {...layout, size: layout.size + 100, footer: layout.footer + 100};
    const file = await openRangeFile("/m.parquet", {fetchImpl: site.fetchImpl, layout: stale, wholeBelow: 0});
    assert.deepEqual(plain(await readKeyedRows(file, "run_id", "run-020", {expectRows: 1200})), expected("run-020"));
    assert.equal(file.byteLength, bytes.length);
    assert.ok(site.log.some((r) => /^bytes=-\d+$/.test(r.range)), "fell back to reading the footer");
    const again = await openRangeFile("/m.parquet", {fetchImpl: host(bytes).fetchImpl, layout: stale, wholeBelow: 0});
    await assert.rejects(readKeyedRows(again, "run_id", "run-020", {expectRows: 1300}), /site was rebuilt, reload the page/);
  });

  test("a run no row group holds reads the footer only", async () => {
    const site = host(bytes);
    const file = await openRangeFile("/m.parquet", {fetchImpl: site.fetchImpl, layout, wholeBelow: 0});
    assert.deepEqual(await readKeyedRows(file, "run_id", "run-999", {expectRows: 1200}), []);
    assert.deepEqual(site.log.map((r) => r.range), [`bytes=${layout.footer}-${layout.size - 1}`]);
  });
});
