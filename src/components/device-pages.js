// /compare's share of the comparison marts, one file per device (src/data/_device_pages.py):
// an index (data/pages/<name>.json: {exists, devices: {device id: file}}) says which devices
// have rows and where; a page fetches only the files of the devices it shows (the whole sweep
// summaries were 22 MB at 10,000 runs), each once for the page's life.
import {rowsOf} from "./data.js";
import {siteDataUrl} from "./site-data.js";

/** Where a per-device file is served. */
export function devicePageUrl(file) {
  return siteDataUrl(`pages/${file}`);
}

const fetched = new Map();

/**
 * The rows of `index`'s mart for the devices `deviceIds` (rows of other devices may come along
 * where a file holds them: callers filter as before). [] when the mart is not built or no device
 * has rows. Rejects when a listed file cannot be read (never "no rows" for a broken site).
 */
export async function deviceRows(index, deviceIds, {fetchImpl = fetch, urlOf = devicePageUrl, cache = fetched} = {}) {
  if (!index?.exists) return [];
  const files = [...new Set(deviceIds.map((id) => index.devices?.[id]).filter(Boolean))];
  const payloads = await Promise.all(files.map((file) => {
    if (!cache.has(file)) {
      const loading = fetchImpl(urlOf(file)).then((response) => {
        if (!response.ok) throw new Error(`${file}: HTTP ${response.status}`);
        return response.json();
      });
      loading.catch(() => cache.delete(file));
      cache.set(file, loading);
    }
    return cache.get(file);
  }));
  return payloads.flatMap((payload) => rowsOf(payload));
}
