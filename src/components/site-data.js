// Where the site serves a file under data/ that no FileAttachment names (the marts' Parquet files
// and parts: dynamic paths), relative to this module, so it works under
// any base path. Every component reads such files through this one function.

/** The URL of `path` under the site's data/ folder (each path segment encoded). */
export function siteDataUrl(path) {
  return new URL(`../../data/${path.split("/").map(encodeURIComponent).join("/")}`, import.meta.url).href;
}
