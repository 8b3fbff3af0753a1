// A Parquet file on the site's own server, read in byte ranges (HTTP Range requests): the shape
// hyparquet reads from ({byteLength, slice(start, end)}), and keyed reads over it.
//
// When the build recorded the file's layout (size, footer offset, each row group's key range and
// page index offsets: data/marts/run_marts.json), a read asks for its footer and page index in one
// round trip, then for the key column's pages, then for the other columns' pages of the rows that
// matched (readKeyedRows): a small file comes whole in one request. Without it, one
// request learns the size and brings the footer: a suffix range (`bytes=-N`), whose
// Content-Range states the file's length. The slices hyparquet asks for at once (dictionary and
// data pages of each column, page indexes) are merged when they lie close together, so a read
// costs a few requests, not one per column. A host that ignores Range and sends the whole file
// (200) still works: the whole file is then kept and sliced.
import {parquetMetadataAsync, parquetReadObjects, rowIndex} from "hyparquet";
import {decompress as zstdDecompress} from "fzstd";
import {parseContentRange} from "./http-range.js";

// The first request per file: its footer for most marts (8-50 KB at 1,000 runs; the CPU
// samples' ~100 KB at 10,000 runs take one more request). Every file the run page opens costs
// this much, so it is kept small.
const TAIL_BYTES = 64 * 1024;
// Slices asked for together and at most this far apart are fetched as one range.
const MERGE_GAP = 64 * 1024;
// A file at most this big is fetched whole after its tail (one more request): reading it by
// pages would cost more requests and re-read bytes than it saves.
const WHOLE_BELOW = 256 * 1024;

const compressors = {ZSTD: (input, outputLength) => zstdDecompress(input, new Uint8Array(outputLength))};

/**
 * Ranges [start, end) sorted and merged where they overlap or lie at most `gap` bytes apart:
 * [{start, end, parts: [indexes of the input ranges it covers]}].
 */
export function mergeRanges(ranges, gap = MERGE_GAP) {
  const order = ranges.map((r, i) => ({...r, i})).sort((a, b) => a.start - b.start || a.end - b.end);
  const merged = [];
  for (const r of order) {
    const last = merged[merged.length - 1];
    if (last && r.start <= last.end + gap) {
      last.end = Math.max(last.end, r.end);
      last.parts.push(r.i);
    } else {
      merged.push({start: r.start, end: r.end, parts: [r.i]});
    }
  }
  return merged;
}

/**
 * The byte ranges [start, end) a read of the rows whose key is `values` (one value or a list;
 * null: no key yet) needs before any data page, from the file's layout as the build recorded it
 * (src/data/_run_parquet.py file_layout: {size, footer, groups: [[first key, last key, column
 * index [start, end], offset index [start, end]], ...]}): the whole file when it is small, else
 * the footer and the page index of each row group whose keys may hold one of `values`.
 */
export function layoutRanges(layout, values, {wholeBelow = WHOLE_BELOW} = {}) {
  if (layout.size <= wholeBelow) return [{start: 0, end: layout.size}];
  const ranges = [{start: layout.footer, end: layout.size}];
  if (values === null || values === undefined) return ranges;
  const wanted = (Array.isArray(values) ? values : [values]).map(String);
  for (const [first, last, ...spans] of layout.groups ?? []) {
    // keys are compared as the file sorts them (byte order of UTF-8: code units agree for ids)
    const mayHold = first === null || last === null || wanted.some((v) => v >= String(first) && v <= String(last));
    if (!mayHold) continue;
    for (const span of spans) if (span) ranges.push({start: span[0], end: span[1]});
  }
  return ranges;
}

/**
 * Open `url` for range reads. Resolves to {byteLength, slice, prefetch, stats}: `prefetch(ranges)`
 * fetches byte ranges ahead of the reads that will slice them (merged where close, in parallel,
 * kept for the file's life); stats counts the requests made and bytes received.
 *
 * With `layout` (the build's record of the file: layoutRanges) no request is made here: the size
 * is the layout's, and the first prefetch checks it. When the server states another size, the
 * file is not the one the layout describes (a rebuilt site): the layout is dropped and the file
 * read as without one, its footer first (readKeyedRows then finds a row count the site's index
 * does not state and says so). Without `layout`, one request learns the size and brings the footer
 * (a suffix range, `bytes=-N`, whose Content-Range states the file's length).
 */
export async function openRangeFile(url, {fetchImpl = fetch, tailBytes = TAIL_BYTES, layout = null, wholeBelow = WHOLE_BELOW} = {}) {
  const stats = {requests: 0, bytes: 0};
  const get = async (range) => {
    stats.requests += 1;
    const response = await fetchImpl(url, {headers: {Range: range}});
    if (response.status !== 206 && response.status !== 200) throw new Error(`${url} answered HTTP ${response.status} to Range: ${range}`);
    const bytes = await response.arrayBuffer();
    stats.bytes += bytes.byteLength;
    return {response, bytes};
  };
  const file = {byteLength: 0, slice, prefetch, stats, footerBytes: null, wholeBelow};
  // What was fetched: {start, end, bytes: Promise<ArrayBuffer>}; `whole`: the whole file.
  let chunks = [];
  let whole = null;
  // One range of the file, as asked: resolves to {start, bytes} where start is where the bytes
  // begin (0 when the host sent the whole file); rejects when the file is not of `size` bytes.
  const fetchRange = (start, end, size) => get(`bytes=${start}-${end - 1}`).then(({response, bytes}) => {
    if (response.status === 200) {
      if (bytes.byteLength !== size) throw new SizeMismatch(bytes.byteLength);
      whole = bytes;
      return {start: 0, bytes};
    }
    const range = parseContentRange(response.headers.get("Content-Range"));
    if (!range || range.first !== start) throw new Error(`${url}: a 206 answer without the Content-Range asked for`);
    if (range.size !== size) throw new SizeMismatch(range.size);
    return {start, bytes};
  });
  // Keep a range being fetched for the reads that slice it; a failed one is forgotten (the read
  // that needs it reports the error; a later read asks again).
  const keep = (start, end, loading) => {
    const bytes = loading.then(({start: at, bytes}) => bytes.slice(start - at, end - at), (error) => {
      throw error instanceof SizeMismatch ? new Error(`${url} changed while it was being read (the site was rebuilt): reload the page`) : error;
    });
    const chunk = {start, end, bytes};
    bytes.catch(() => { chunks = chunks.filter((c) => c !== chunk); });
    chunks.push(chunk);
    return bytes;
  };
  const cached = (start, end) => {
    if (whole) return Promise.resolve(whole.slice(start, end));
    const chunk = chunks.find((c) => c.start <= start && end <= c.end);
    return chunk ? chunk.bytes.then((b) => b.slice(start - chunk.start, end - chunk.start)) : null;
  };

  async function prefetch(ranges) {
    const missing = ranges.filter((r) => r.end > r.start && !cached(r.start, r.end));
    if (!missing.length) return;
    const size = file.byteLength;
    const groups = mergeRanges(missing);
    const loads = groups.map((g) => fetchRange(g.start, g.end, size));
    groups.forEach((g, i) => keep(g.start, g.end, loads[i]));
    const settled = await Promise.allSettled(loads);
    const mismatch = settled.find((s) => s.status === "rejected" && s.reason instanceof SizeMismatch);
    if (mismatch && layout) {
      // not the file the layout describes: forget it and what was fetched by it
      layout = null;
      chunks = [];
      whole = null;
      await openByFooter();
    }
  }

  async function openByFooter() {
    const first = await get(`bytes=-${tailBytes}`);
    if (first.response.status === 200) {
      whole = first.bytes; // no range support: this was the whole file
      file.byteLength = whole.byteLength;
      return;
    }
    const range = parseContentRange(first.response.headers.get("Content-Range"));
    if (!range) throw new Error(`${url}: a 206 answer without a readable Content-Range`);
    file.byteLength = range.size;
    file.footerBytes = first.bytes.byteLength; // where the footer is looked for first: these bytes
    chunks.push({start: range.first, end: range.size, bytes: Promise.resolve(first.bytes)});
    if (range.first === 0) whole = first.bytes;
    else if (range.size <= wholeBelow) await prefetch([{start: 0, end: range.first}]);
  }

  function slice(start, end = file.byteLength) {
    const hit = cached(start, end);
    if (hit) return hit;
    return new Promise((resolve, reject) => {
      if (pending.length === 0) queueMicrotask(() => setTimeout(flush, 0));
      pending.push({start, end, resolve, reject});
    });
  }
  // Slices asked for together (hyparquet asks for a read's column chunks at once) go out merged.
  let pending = [];
  const flush = () => {
    const batch = pending;
    pending = [];
    for (const group of mergeRanges(batch)) {
      const bytes = keep(group.start, group.end, fetchRange(group.start, group.end, file.byteLength));
      for (const i of group.parts) {
        const {start, end, resolve, reject} = batch[i];
        bytes.then((b) => resolve(b.slice(start - group.start, end - group.start)), reject);
      }
    }
  };

  if (layout) {
    file.byteLength = layout.size;
    file.footerBytes = layout.size - layout.footer;
  } else {
    await openByFooter();
  }
  Object.defineProperty(file, "layout", {get: () => layout});
  return file;
}

/** A server's answer for a file of another size than expected (`size`: the one it stated). */
class SizeMismatch extends Error {
  constructor(size) {
    super(`the file has ${size} bytes`);
    this.size = size;
  }
}

// Matched rows at most this many rows apart are read as one range (one page per column either way).
const ROWS_APART = 256;

/**
 * [rowStart, rowEnd) ranges covering the row indexes `rows`, joined where at most `apart` rows
 * lie between two of them (mergeRanges, on rows instead of bytes).
 */
export function rowRanges(rows, apart = ROWS_APART) {
  return mergeRanges(rows.map((row) => ({start: row, end: row + 1})), apart).map(({start, end}) => [start, end]);
}

/**
 * The rows of a Parquet file whose column `key` equals `value` (or is one of `value` when it is
 * an array), reading only the row groups whose statistics can hold them and, inside those, the
 * pages the page index points to. The key column is read first, alone: the other columns'
 * pages are fetched and decoded only for rows that matched. A run has no rows in most marts it
 * is looked up in (a fio run in the TPC-C results), and a page of every column is most of what a
 * read costs, in bytes and in decoding. `expectRows`: the row count the site's index states; a
 * file that disagrees belongs to another build, which is an error, not an empty answer.
 */
export async function readKeyedRows(file, key, value, {expectRows = null} = {}) {
  // With the file's layout: its footer and the page index that may point to `value`, in one round trip
  if (file.layout) await file.prefetch(layoutRanges(file.layout, value, {wholeBelow: file.wholeBelow}));
  const metadata = await parquetMetadataAsync(file, {initialFetchSize: file.footerBytes ?? Math.min(file.byteLength, TAIL_BYTES)});
  if (expectRows !== null && Number(metadata.num_rows) !== expectRows) {
    throw new Error(`a data file holds ${metadata.num_rows} rows where this site's index says ${expectRows}: the site was rebuilt, reload the page`);
  }
  const filter = Array.isArray(value) ? {[key]: {$in: value}} : {[key]: {$eq: value}};
  const keys = await parquetReadObjects({file, metadata, columns: [key], filter, compressors, useOffsetIndex: true,
    usePageIndex: true, includeRowIndex: true});
  if (!keys.length) return [];
  const matched = new Set(keys.map((row) => row[rowIndex]));
  const ranges = rowRanges([...matched]);
  const reads = await Promise.all(ranges.map(([rowStart, rowEnd]) =>
    parquetReadObjects({file, metadata, rowStart, rowEnd, compressors, useOffsetIndex: true})));
  return ranges.flatMap(([rowStart], i) => reads[i].filter((_, j) => matched.has(rowStart + j)));
}
