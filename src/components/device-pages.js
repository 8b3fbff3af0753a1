// /compare's share of the comparison marts, one device at a time (src/data/_device_pages.py): an
// index (data/pages/<name>.json: {exists, pack, pack_bytes, devices: {device id: [start, end]}})
// says which devices have rows and where their line lies in the pack (data/pages/<name>.jsonl, a
// line of column-oriented rows per device); a page fetches only the lines of the devices it shows
// (the whole sweep summaries were 22 MB at 10,000 runs), each by an HTTP range, once for the
// page's life. One pack instead of a file per device: 1,601 files fewer to build and ship at
// 10,000 runs.
import {rowsOf} from "./data.js";
import {parseContentRange} from "./http-range.js";

const fetched = new Map();
const utf8 = new TextDecoder();

/**
 * The rows of `index`'s mart for the devices `deviceIds`, read from the pack at `packUrl` (its
 * FileAttachment's href: the pack of the same build as the index). [] when the mart is not built
 * or no device has rows. Rejects when the pack cannot be read or is not the one the index
 * describes (never "no rows" for a broken site).
 */
export async function deviceRows(index, deviceIds, packUrl, {fetchImpl = fetch, cache = fetched} = {}) {
  if (!index?.exists) return [];
  const wanted = [...new Set(deviceIds)].filter((id) => Array.isArray(index.devices?.[id]));
  const payloads = await Promise.all(wanted.map((id) => {
    const key = `${packUrl}\u0000${id}`;
    if (!cache.has(key)) {
      const [start, end] = index.devices[id];
      const loading = readLine(packUrl, start, end, index.pack_bytes, fetchImpl, cache);
      loading.catch(() => cache.delete(key));
      cache.set(key, loading);
    }
    return cache.get(key);
  }));
  return payloads.flatMap((payload) => rowsOf(payload));
}

/** One device's line of the pack: bytes [start, end) of a file of `size` bytes, parsed. */
async function readLine(url, start, end, size, fetchImpl, cache) {
  const whole = cache.get(url);
  if (whole) return lineOf(await whole, start, end);
  const response = await fetchImpl(url, {headers: {Range: `bytes=${start}-${end - 1}`}});
  if (response.status === 206) {
    const range = parseContentRange(response.headers.get("Content-Range"));
    if (!range || range.first !== start || range.last !== end - 1) throw new Error(`${url}: a 206 answer without the range asked for`);
    checkSize(range.size, url, size);
    return JSON.parse(utf8.decode(await response.arrayBuffer()));
  }
  if (response.status === 200) {
    // a host that ignores Range sends the whole pack: kept for the other devices' lines (unless
    // it is not the pack the index describes)
    const loading = response.arrayBuffer().then((bytes) => {
      checkSize(bytes.byteLength, url, size);
      return bytes;
    });
    cache.set(url, loading);
    loading.catch(() => cache.delete(url));
    return lineOf(await loading, start, end);
  }
  throw new Error(`${url} answered HTTP ${response.status} to a range request`);
}

/** A device's line cut from the whole pack (its size checked before it was kept). */
function lineOf(bytes, start, end) {
  return JSON.parse(utf8.decode(bytes.slice(start, end)));
}

/** An error unless the pack has the size the index states: else it is another build's. */
function checkSize(actual, url, size) {
  if (actual !== size) throw new Error(`${url} has ${actual} bytes where this page's index says ${size}: the site was rebuilt, reload the page`);
}
