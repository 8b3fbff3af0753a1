// Page state in the URL query string, so a copied link reproduces the view exactly.
// Pages read their initial control values with param()/paramList() and write every change
// back with setParams(); history.replaceState keeps the back button for real navigation.

function search() {
  return new URLSearchParams(globalThis.location?.search ?? "");
}

/** One value from the URL (or `fallback` when absent or empty). */
export function param(name, fallback = null) {
  const value = search().get(name);
  return value === null || value === "" ? fallback : value;
}

/** A number from the URL, or `fallback` when absent or not a finite number. */
export function numberParam(name, fallback = null) {
  const value = param(name);
  const number = value === null ? NaN : Number(value);
  return Number.isFinite(number) ? number : fallback;
}

/**
 * Every value of a repeated parameter (?device=a&device=b), or `fallback` when absent.
 * A parameter present but empty (?device=) is an explicitly empty list.
 */
export function paramList(name, fallback = []) {
  const params = search();
  if (!params.has(name)) return fallback;
  return params.getAll(name).filter((v) => v !== "");
}

/**
 * Merge `values` into the URL: arrays become repeated parameters, null/undefined/"" (and values
 * equal to `defaults[name]`) remove the parameter so default views keep short URLs.
 */
export function setParams(values, defaults = {}) {
  if (!globalThis.history || !globalThis.location) return;
  const params = search();
  for (const [name, value] of Object.entries(values)) {
    params.delete(name);
    const fallback = defaults[name];
    if (value === null || value === undefined || value === "") continue;
    if (Array.isArray(value)) {
      if (Array.isArray(fallback) && sameList(value, fallback)) continue;
      if (value.length === 0) params.set(name, ""); // explicitly none (differs from the default)
      for (const v of value) params.append(name, String(v));
    } else if (fallback === undefined || String(value) !== String(fallback)) {
      params.set(name, String(value));
    }
  }
  const query = params.toString();
  const url = `${location.pathname}${query ? `?${query}` : ""}${location.hash}`;
  if (url !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(history.state, "", url);
}

function sameList(a, b) {
  return a.length === b.length && a.every((v, i) => String(v) === String(b[i]));
}

/** Keep only the wanted values that are among the options (a stale link must not break a page). */
export function within(wanted, options) {
  const set = new Set(options.map(String));
  return wanted.filter((v) => set.has(String(v)));
}
