// What a server says about a range it answered: shared by the readers that fetch byte ranges of
// the site's files (parquet-range.js: the marts' Parquet; device-pages.js: /compare's packs),
// in a module of its own so that a page reading packs does not load the Parquet reader.

/** "bytes 0-99/1234" -> {first, last, size}; null when the header is missing or not of that form. */
export function parseContentRange(header) {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(header ?? "").trim());
  return match ? {first: Number(match[1]), last: Number(match[2]), size: Number(match[3])} : null;
}
