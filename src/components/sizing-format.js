// Numbers as the sizing page prints them: a sensible number of significant digits, thousands
// separators, words for the very large, and never NaN, Infinity, undefined or null (a value that
// is not a finite number prints as the `missing` text the caller chooses). Pure, no DOM.

const WORDS = [[1e12, "trillion"], [1e9, "billion"], [1e6, "million"]];

// One formatter per number of decimals (toLocaleString builds a new one on every call, which
// was a tenth of the page's work per change).
const FORMATTERS = new Map();
function grouped(x, maxDecimals = 0, minDecimals = 0) {
  const key = `${maxDecimals}|${minDecimals}`;
  let f = FORMATTERS.get(key);
  if (!f) {
    f = new Intl.NumberFormat("en-US", {maximumFractionDigits: maxDecimals, minimumFractionDigits: minDecimals});
    FORMATTERS.set(key, f);
  }
  return f.format(x);
}

function finite(x) {
  return typeof x === "number" && Number.isFinite(x);
}

/** `x` to `digits` significant digits: 63919 -> "63,900", 0.52914 -> "0.529", 2e12 -> "2 trillion". */
export function sig(x, {digits = 3, missing = "—"} = {}) {
  if (!finite(x)) return missing;
  const sign = x < 0 ? "-" : "";
  const a = Math.abs(x);
  if (a >= 1e15) {
    const exponent = Math.floor(Math.log10(a));
    return `${sign}${sig(a / 10 ** exponent, {digits})} × 10^${exponent}`;
  }
  for (const [size, word] of WORDS) {
    if (a >= size) return `${sign}${sig(a / size, {digits})} ${word}`;
  }
  if (a === 0) return "0";
  // Round to `digits` significant digits, then print without exponent and without trailing zeros.
  const rounded = Number(a.toPrecision(digits));
  const decimals = Math.max(0, digits - 1 - Math.floor(Math.log10(rounded)));
  return sign + grouped(rounded, Math.min(decimals, 12));
}

/** A whole count (drives): exact with separators below a million, then in words. */
export function count(n, {missing = "—"} = {}) {
  if (!finite(n)) return missing;
  if (Math.abs(n) < 1e6) return grouped(Math.round(n));
  return sig(n, {digits: 3});
}

/** Dollars: whole dollars below a million (cents below $10), then in words. */
export function money(x, {missing = "price unknown"} = {}) {
  if (!finite(x)) return missing;
  const a = Math.abs(x);
  if (a >= 1e6) return `$${sig(x, {digits: 3})}`;
  if (a < 10) return `$${grouped(x, 2, 2)}`;
  return `$${grouped(Math.round(x))}`;
}

/** A headroom factor: "1.00×", "14.4×", "126×" (two decimals near 1, where they matter). */
export function times(x, {missing = "—"} = {}) {
  if (!finite(x)) return missing;
  // Rounded down: a headroom never prints larger than it is (0.996 never shows as 1.00).
  if (x < 10) return `${(Math.floor(x * 100 + 1e-9) / 100).toFixed(2)}×`;
  if (x < 100) return `${(Math.floor(x * 10 + 1e-9) / 10).toFixed(1)}×`;
  return x >= 1e6 ? `${sig(x)}×` : `${grouped(Math.floor(x + 1e-9))}×`;
}

/** Microseconds as a latency: "922 µs", "1.91 ms", "593 ms", "2.3 s". */
export function latency(us, {missing = "—"} = {}) {
  if (!finite(us)) return missing;
  if (us < 1000) return `${sig(us)} µs`;
  if (us < 1e6) return `${sig(us / 1000)} ms`;
  return `${sig(us / 1e6)} s`;
}

/** A number for an input field's text: no separators, no exponent, at most `decimals` decimals. */
export function inputText(x, decimals = 3) {
  if (!finite(x)) return "";
  const rounded = Number(x.toFixed(decimals));
  // toFixed never uses an exponent below 1e21; our bounds keep inputs far below that.
  return String(rounded).includes("e") ? x.toFixed(decimals).replace(/\.?0+$/, "") : String(rounded);
}
