// A Parquet file on the site's own server, read in byte ranges (HTTP Range requests): the shape
// hyparquet reads from ({byteLength, slice(start, end)}), and keyed reads over it.
//
// One request learns the size and brings the footer: a suffix range (`bytes=-N`), whose
// Content-Range states the file's length. The slices hyparquet asks for at once (dictionary and
// data pages of each column, page indexes) are merged when they lie close together, so a read
// costs a few requests, not one per column. A host that ignores Range and sends the whole file
// (200) still works: the whole file is then kept and sliced.
import {parquetMetadataAsync, parquetReadObjects} from "hyparquet";
import {decompress as zstdDecompress} from "fzstd";

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

/** "bytes 0-99/1234" -> {first, last, size}; null when the header is missing or not of that form. */
export function parseContentRange(header) {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(header ?? "").trim());
  return match ? {first: Number(match[1]), last: Number(match[2]), size: Number(match[3])} : null;
}

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
 * Open `url` for range reads. Resolves to {byteLength, slice, stats} where stats counts the
 * requests made and bytes received (tests and the benchmark read it).
 */
export async function openRangeFile(url, {fetchImpl = fetch, tailBytes = TAIL_BYTES} = {}) {
  const stats = {requests: 0, bytes: 0};
  const get = async (range) => {
    stats.requests += 1;
    const response = await fetchImpl(url, {headers: {Range: range}});
    if (response.status !== 206 && response.status !== 200) throw new Error(`${url} answered HTTP ${response.status} to Range: ${range}`);
    const bytes = await response.arrayBuffer();
    stats.bytes += bytes.byteLength;
    return {response, bytes};
  };
  const first = await get(`bytes=-${tailBytes}`);
  let whole = null;
  let tail = null;
  let byteLength;
  if (first.response.status === 200) {
    whole = first.bytes; // no range support: this was the whole file
    byteLength = whole.byteLength;
  } else {
    const range = parseContentRange(first.response.headers.get("Content-Range"));
    if (!range) throw new Error(`${url}: a 206 answer without a readable Content-Range`);
    byteLength = range.size;
    tail = {start: range.first, bytes: first.bytes};
    if (tail.start > 0 && byteLength <= WHOLE_BELOW) {
      const head = await get(`bytes=0-${tail.start - 1}`);
      if (head.response.status === 200) {
        whole = head.bytes;
      } else {
        const joined = new Uint8Array(byteLength);
        joined.set(new Uint8Array(head.bytes), 0);
        joined.set(new Uint8Array(tail.bytes), tail.start);
        whole = joined.buffer;
      }
    } else if (tail.start === 0) {
      whole = tail.bytes;
    }
  }

  let pending = [];
  const flush = () => {
    const batch = pending;
    pending = [];
    for (const group of mergeRanges(batch)) {
      const loading = get(`bytes=${group.start}-${group.end - 1}`).then(({response, bytes}) => {
        if (response.status === 200) return {start: 0, bytes}; // the host sent the whole file after all
        const range = parseContentRange(response.headers.get("Content-Range"));
        if (!range || range.size !== byteLength || range.first !== group.start) {
          throw new Error(`${url} changed while it was being read (the site was rebuilt): reload the page`);
        }
        return {start: range.first, bytes};
      });
      for (const i of group.parts) {
        const {start, end, resolve, reject} = batch[i];
        loading.then(({start: at, bytes}) => resolve(bytes.slice(start - at, end - at)), reject);
      }
    }
  };
  const slice = (start, end = byteLength) => {
    if (whole) return whole.slice(start, end);
    if (start >= tail.start) return tail.bytes.slice(start - tail.start, end - tail.start);
    return new Promise((resolve, reject) => {
      if (pending.length === 0) queueMicrotask(() => setTimeout(flush, 0));
      pending.push({start, end, resolve, reject});
    });
  };
  return {byteLength, slice, stats};
}

/**
 * The rows of a Parquet file whose column `key` equals `value` (or is one of `value` when it is
 * an array), reading only the row groups whose statistics can hold them and, inside those, the
 * pages the page index points to. `expectRows`: the row count the site's index states; a file
 * that disagrees belongs to another build, which is an error, not an empty answer.
 */
export async function readKeyedRows(file, key, value, {expectRows = null} = {}) {
  const metadata = await parquetMetadataAsync(file, {initialFetchSize: Math.min(file.byteLength, TAIL_BYTES)});
  if (expectRows !== null && Number(metadata.num_rows) !== expectRows) {
    throw new Error(`a data file holds ${metadata.num_rows} rows where this site's index says ${expectRows}: the site was rebuilt, reload the page`);
  }
  const filter = Array.isArray(value) ? {[key]: {$in: value}} : {[key]: {$eq: value}};
  return parquetReadObjects({file, metadata, filter, compressors, useOffsetIndex: true, usePageIndex: true});
}
