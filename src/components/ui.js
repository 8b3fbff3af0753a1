// Small DOM helpers. Everything coming from data is set with textContent or as attribute
// values, never parsed as HTML: a manifest tag "<img src=x onerror=...>" shows as text.

/** el("td", {class: "num", title: "..."}, child, "text", ...) */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) {
      if (typeof value === "function") node.addEventListener(key.slice(2), value); // never handler text
    }
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Badge telling published, measured and synthetic figures apart. */
export function kindBadge(kind) {
  const k = kind ?? "measured";
  return el("span", {class: `badge ${["measured", "published", "synthetic"].includes(k) ? k : ""}`}, k);
}

/** Marker for approximate (prose) figures. */
export function approxBadge(isApprox) {
  return isApprox ? el("span", {class: "badge approx", title: "approximate: read from prose, hedged or rounded"}, "≈ approx") : null;
}

/** A plain explanation box (for empty selections and missing marts). */
export function note(text, {kind = "info"} = {}) {
  return el("p", {class: `note note-${kind}`}, text);
}

const NUMBER = new Intl.NumberFormat("en-US", {maximumSignificantDigits: 10});
const SHORT = new Intl.NumberFormat("en-US", {maximumFractionDigits: 2});

/** Value as text: numbers with up to 10 significant digits, null as an em dash. */
export function fmt(value, {short = false} = {}) {
  if (value === null || value === undefined || value === "") return "—";
  if (typeof value === "number") return Number.isFinite(value) ? (short ? SHORT : NUMBER).format(value) : "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}

/** A table from rows and [field, title, {num, format}] column specs. */
export function table(rows, columns, {caption, className = "data-table"} = {}) {
  return el("table", {class: className},
    caption ? el("caption", {}, caption) : null,
    el("thead", {}, el("tr", {}, columns.map(([, title, opts]) => el("th", {class: opts?.num ? "num" : null}, title)))),
    el("tbody", {}, rows.map((row) => el("tr", {}, columns.map(([field, , opts]) => {
      const value = typeof field === "function" ? field(row) : row[field];
      return el("td", {class: opts?.num ? "num" : null}, value instanceof Node ? value : (opts?.format ?? fmt)(value));
    }))))
  );
}

/** Definition list of [label, value] pairs, skipping null values unless keepEmpty. */
export function facts(pairs, {keepEmpty = false} = {}) {
  const items = pairs.filter(([, v]) => keepEmpty || (v !== null && v !== undefined && v !== ""));
  return el("dl", {class: "facts"}, items.map(([k, v]) => [el("dt", {}, k), el("dd", {}, v instanceof Node ? v : fmt(v))]));
}
