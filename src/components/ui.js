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

const EXACT = new Intl.NumberFormat("en-US", {maximumSignificantDigits: 10});
const WHOLE = new Intl.NumberFormat("en-US", {maximumFractionDigits: 0});
const SHORT = new Intl.NumberFormat("en-US", {maximumFractionDigits: 2});
const SIGNIFICANT = new Map();

/**
 * Value as text, null as an em dash. Numbers get `digits` significant digits (4 by default) but
 * never lose an integer digit: 21614.12862 -> "21,614", 193.536 -> "193.5", 0.00368934038 ->
 * "0.003689". `exact: true` gives up to 10 significant digits (a value as stored).
 */
export function fmt(value, {short = false, exact = false, digits = 4} = {}) {
  if (value === null || value === undefined || value === "") return "—";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return "—";
    if (exact) return EXACT.format(value);
    if (short) return SHORT.format(value);
    if (Math.abs(value) >= 10 ** (digits - 1)) return WHOLE.format(value);
    if (!SIGNIFICANT.has(digits)) SIGNIFICANT.set(digits, new Intl.NumberFormat("en-US", {maximumSignificantDigits: digits}));
    return SIGNIFICANT.get(digits).format(value);
  }
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}

/** A table cell's number: rounded by fmt, with the stored value in its tooltip when rounding hid digits. */
export function numCell(value, attrs = {}) {
  const text = fmt(value);
  const exact = typeof value === "number" ? fmt(value, {exact: true}) : null;
  return el("td", {class: "num", ...attrs, title: exact && exact !== text ? exact : attrs.title}, text);
}

const MONTHS = {jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12};
const pad = (n) => String(n).padStart(2, "0");

/**
 * One date format for the whole site: "2026-11-21" for a date, "2026-11-21 13:46 UTC" for a
 * timestamp (stored in UTC), "2017-12" for a month. Accepts ISO strings, Date objects and the
 * forms studies print ("9/01/2016" US month/day/year, "12/17" month/two-digit year,
 * "March 2016"). Anything else comes back as it was, never as "Invalid Date".
 */
export function formatDate(value, {time = true} = {}) {
  if (value === null || value === undefined || value === "") return "—";
  if (value instanceof Date) value = value.toISOString();
  const text = String(value).trim();
  let m = text.match(/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/);
  if (m) {
    const [, y, mo, d, hh, mm, zone] = m;
    if (hh === undefined || !time) return `${y}-${mo}-${d}`;
    if (!zone || zone === "Z" || /^[+-]00:?00$/.test(zone)) return `${y}-${mo}-${d} ${hh}:${mm} UTC`;
    const utc = new Date(text.replace(" ", "T"));
    return Number.isNaN(utc.getTime()) ? text : formatDate(utc.toISOString(), {time});
  }
  if ((m = text.match(/^(\d{1,2})\/(\d{1,2})\/(\d{4})$/))) return `${m[3]}-${pad(m[1])}-${pad(m[2])}`;
  if ((m = text.match(/^(\d{1,2})\/(\d{2}|\d{4})$/)) && +m[1] >= 1 && +m[1] <= 12) {
    return `${m[2].length === 2 ? `20${m[2]}` : m[2]}-${pad(m[1])}`;
  }
  if ((m = text.match(/^([A-Za-z]{3})[a-z]*\.? (\d{4})$/)) && MONTHS[m[1].toLowerCase()]) return `${m[2]}-${pad(MONTHS[m[1].toLowerCase()])}`;
  if ((m = text.match(/^(\d{4})-(\d{2})$/))) return text;
  return text;
}

/**
 * Order of two cell values: numbers as numbers, text with its digits read as numbers ("oio2"
 * before "oio10"), empty values last.
 */
export function compareValues(a, b) {
  const emptyA = a === null || a === undefined || a === "" || (typeof a === "number" && Number.isNaN(a));
  const emptyB = b === null || b === undefined || b === "" || (typeof b === "number" && Number.isNaN(b));
  if (emptyA || emptyB) return emptyA === emptyB ? 0 : emptyA ? 1 : -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  return String(a).localeCompare(String(b), "en", {numeric: true, sensitivity: "base"});
}

/**
 * A table that sorts by any column: click a column title (a button, so the keyboard works too),
 * click again to reverse. Numbers sort as numbers and empty cells stay last either way.
 * columns: [{key, title, value: row -> the sort value (default row[key]), cell: row -> Node or
 *   value (default fmt(value)), num: right-aligned, hint: the title's tooltip}]
 * Options: id, sort/descending (the initial order), onSort(key, descending) (e.g. to keep it in
 * the URL), limit (rows shown before a "show all" button), caption.
 * Returns the scroll box holding the table; tests find the table by its id.
 */
export function sortableTable(rows, columns, {id, className = "data-table", sort = null, descending = false, onSort, limit = Infinity, caption, rowAttrs} = {}) {
  const valueOf = (column, row) => (column.value ? column.value(row) : row[column.key]);
  let key = columns.some((c) => c.key === sort) ? sort : null;
  let desc = Boolean(descending);
  let showAll = rows.length <= limit;
  const tbody = el("tbody");
  const headers = columns.map((column) => {
    const button = el("button", {type: "button", class: "sort-button", title: column.hint ?? `Sort by ${column.title}`}, column.title);
    const th = el("th", {class: column.num ? "num" : null, scope: "col", dataset: {key: column.key}}, button);
    button.addEventListener("click", () => {
      desc = key === column.key ? !desc : Boolean(column.num);
      key = column.key;
      render();
      onSort?.(key, desc);
    });
    return th;
  });
  const more = el("button", {type: "button", class: "show-all"});
  more.addEventListener("click", () => {
    showAll = true;
    render();
  });
  const table = el("table", {class: `${className} sortable`, id}, caption ? el("caption", {}, caption) : null,
    el("thead", {}, el("tr", {}, headers)), tbody);
  const box = el("div", {class: "table-scroll"}, table, more);
  function render() {
    const column = columns.find((c) => c.key === key);
    const order = column
      ? rows.map((row, i) => [valueOf(column, row), i]).sort(([a, i], [b, j]) => {
        const c = compareValues(a, b);
        // empty cells stay last in both directions
        const oneEmpty = compareValues(a, null) === 0 || compareValues(b, null) === 0;
        return (oneEmpty ? c : desc ? -c : c) || i - j;
      }).map(([, i]) => rows[i])
      : rows;
    for (const th of headers) {
      th.setAttribute("aria-sort", th.dataset.key === key ? (desc ? "descending" : "ascending") : "none");
    }
    const shown = showAll ? order : order.slice(0, limit);
    tbody.replaceChildren(...shown.map((row) => el("tr", rowAttrs ? rowAttrs(row) : {}, columns.map((c) => {
      const content = c.cell ? c.cell(row) : valueOf(c, row);
      const value = valueOf(c, row);
      // data-label / data-empty: a table with class "stack-on-phone" shows each row as a card of
      // "label: value" lines on a phone, leaving out the empty ones
      const dataset = {label: c.title, ...(value === null || value === undefined || value === "" ? {empty: "true"} : {})};
      if (c.num && !(content instanceof Node)) return numCell(content, {dataset});
      return el("td", {class: c.num ? "num" : c.className ?? null, dataset}, content instanceof Node || Array.isArray(content) ? content : fmt(content));
    }))));
    more.hidden = showAll;
    more.textContent = `Show all ${fmt(rows.length)} rows`;
  }
  render();
  return box;
}

/** A table from rows and [field, title, {num, format}] column specs. */
export function table(rows, columns, {caption, className = "data-table"} = {}) {
  return el("table", {class: className},
    caption ? el("caption", {}, caption) : null,
    el("thead", {}, el("tr", {}, columns.map(([, title, opts]) => el("th", {class: opts?.num ? "num" : null}, title)))),
    el("tbody", {}, rows.map((row) => el("tr", {}, columns.map(([field, title, opts]) => {
      const value = typeof field === "function" ? field(row) : row[field];
      const dataset = {label: title}; // for "stack-on-phone" tables
      if (opts?.num && !opts?.format && !(value instanceof Node)) return numCell(value, {dataset});
      return el("td", {class: opts?.num ? "num" : null, dataset}, value instanceof Node ? value : (opts?.format ?? fmt)(value));
    }))))
  );
}

/** Definition list of [label, value] pairs, skipping null values unless keepEmpty. */
export function facts(pairs, {keepEmpty = false} = {}) {
  const items = pairs.filter(([, v]) => keepEmpty || (v !== null && v !== undefined && v !== ""));
  return el("dl", {class: "facts"}, items.map(([k, v]) => [el("dt", {}, k), el("dd", {}, v instanceof Node ? v : fmt(v))]));
}
