// Input forms of the sizing page. Each form is an element with a `.value` that fires "input"
// events (so Framework's view() reads it), keeps every field in the URL, and shows the
// validation message (in the words on screen) next to the field it concerns.
import {param, setParams} from "./state.js";
import {el} from "./ui.js";
import {inputText} from "./sizing-format.js";

// URL writes of a burst of changes (several fields set at once, a form rebuilt) go out as one
// history.replaceState just after the burst: under load each one cost tens of ms.
// A form being built reads the URL, so it flushes the queue first: a value typed in the same
// burst that rebuilds the form is never lost.
const pendingParams = {values: {}, defaults: {}, scheduled: false};
function queueParams(values, defaults) {
  Object.assign(pendingParams.values, values);
  Object.assign(pendingParams.defaults, defaults);
  if (pendingParams.scheduled) return;
  pendingParams.scheduled = true;
  setTimeout(flushParams, 0);
}

/** Write the queued URL parameters now (a no-op when nothing is queued). */
export function flushParams() {
  if (!pendingParams.scheduled) return;
  const {values, defaults} = pendingParams;
  pendingParams.values = {};
  pendingParams.defaults = {};
  pendingParams.scheduled = false;
  setParams(values, defaults);
}

/** Text of an input -> number, undefined (blank) or the text itself (so validation can name it). */
export function toNumber(text) {
  const t = String(text ?? "").trim().replaceAll(",", "");
  if (t === "") return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

/**
 * A form of fields [{name, label, unit, type: "number"|"select", options: [[value, label]], fallback}],
 * validated by `validate(values) -> {name: message}`. URL parameter = field name.
 */
export function fieldForm(fields, {validate = () => ({}), className = "sizing-form"} = {}) {
  flushParams();
  const form = el("form", {class: className, onsubmit: (e) => e.preventDefault()});
  const controls = new Map();
  const messages = new Map();
  for (const f of fields) {
    const initial = param(f.name, f.fallback === undefined ? "" : String(f.fallback));
    let control;
    if (f.type === "select") {
      control = el("select", {name: f.name, id: `field-${f.name}`},
        f.options.map(([v, label]) => el("option", {value: v, selected: String(v) === initial}, label)));
    } else {
      control = el("input", {name: f.name, id: `field-${f.name}`, type: "text", inputmode: "decimal", value: initial,
                             placeholder: f.placeholder ?? "", size: 10, autocomplete: "off"});
    }
    const message = el("span", {class: "field-error", role: "alert"});
    controls.set(f.name, control);
    messages.set(f.name, message);
    form.append(el("div", {class: "field"},
      el("label", {class: "field-label", for: `field-${f.name}`}, f.label),
      el("span", {class: "field-input"}, control, f.unit ? el("span", {class: "field-unit"}, f.unit) : null, message)));
  }
  const read = () => Object.fromEntries(fields.map((f) => {
    const raw = controls.get(f.name).value;
    return [f.name, f.type === "select" ? raw : toNumber(raw)];
  }));
  const update = () => {
    const values = read();
    const errors = validate(values);
    for (const [name, message] of messages) message.textContent = errors[name] ?? "";
    for (const [name, control] of controls) control.toggleAttribute("aria-invalid", Boolean(errors[name]));
    form.value = {values, errors, valid: Object.keys(errors).length === 0};
    const defaults = Object.fromEntries(fields.map((f) => [f.name, f.fallback === undefined ? "" : String(f.fallback)]));
    queueParams(Object.fromEntries(fields.map((f) => [f.name, String(controls.get(f.name).value)])), defaults);
  };
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  update();
  return form;
}

/**
 * Editable per-drive figures: one row per device, one input per field, prefilled with the
 * catalog / evidence figure; Restore puts the originals back. URL: o.<device>.<field>.
 * Edits are tracked per figure: typing a DWPD marks the DWPD as typed in, not the IOPS.
 * An untouched field uses the exact original (the input shows it rounded).
 * `validate(figures, edited)` returns {field: message}, shown next to the device.
 * value: [{...device, figures: {field: number|null|text}, edited: {field: bool}, errors: {field: message}}]
 */
export function deviceFiguresForm(devices, fields, {validate = () => ({})} = {}) {
  flushParams();
  const form = el("form", {class: "device-figures", onsubmit: (e) => e.preventDefault()});
  const table = el("table", {class: "device-figures-table"});
  table.append(el("thead", {}, el("tr", {}, el("th", {}, "Device"), el("th", {}, "IOPS figure"),
    fields.map((f) => el("th", {}, f.label)), el("th", {}, ""))));
  const body = el("tbody");
  table.append(body);
  form.append(el("div", {class: "scroll-box"}, table));
  const rows = [];
  for (const d of devices) {
    const inputs = new Map();
    const errorCell = el("div", {class: "field-error", role: "alert"});
    const tr = el("tr", {}, el("td", {class: "device-cell"}, d.swatch ?? null, d.label, errorCell),
      el("td", {}, el("span", {class: `badge level-${d.level_key}`}, d.level_label)));
    for (const f of fields) {
      const original = d.defaults[f.name];
      const key = `o.${d.device_id}.${f.name}`;
      const originalText = original === null || original === undefined ? "" : inputText(original, f.decimals ?? 3);
      const input = el("input", {type: "text", inputmode: "decimal", size: 8, name: key, autocomplete: "off",
                                 "aria-label": `${f.label}, ${d.label}`,
                                 value: param(key, originalText), placeholder: originalText === "" ? "unknown" : ""});
      inputs.set(f.name, {input, original, originalText, key});
      tr.append(el("td", {}, input));
    }
    const restore = el("button", {type: "button", title: "Put the catalog and evidence figures back",
                                  onclick: () => {
                                    for (const {input, originalText} of inputs.values()) input.value = originalText;
                                    form.dispatchEvent(new Event("input"));
                                  }}, "Restore");
    tr.append(el("td", {}, restore));
    body.append(tr);
    rows.push({device: d, inputs, errorCell});
  }
  const update = () => {
    const value = [];
    const url = {};
    const defaults = {};
    for (const {device, inputs, errorCell} of rows) {
      const figures = {};
      const edited = {};
      for (const [name, {input, original, originalText, key}] of inputs) {
        const text = input.value.trim();
        edited[name] = text !== originalText;
        const typed = toNumber(text);
        figures[name] = edited[name] ? (typed === undefined ? null : typed) : (original ?? null);
        url[key] = input.value;
        defaults[key] = originalText;
      }
      const errors = validate(figures, edited);
      for (const [name, {input}] of inputs) input.toggleAttribute("aria-invalid", Boolean(errors[name]));
      errorCell.textContent = Object.values(errors).join("; ");
      value.push({...device, figures, edited, errors});
    }
    queueParams(url, defaults);
    form.value = value;
  };
  form.addEventListener("input", update);
  update();
  return form;
}

/** A link that downloads `rows` as CSV (built in the browser, nothing is requested). */
export function csvDownload(rows, columns, filename = "iopscope-sizing.csv") {
  const text = csvText(rows, columns);
  const url = URL.createObjectURL(new Blob([text], {type: "text/csv"}));
  return el("a", {href: url, download: filename, class: "csv-download"}, "Download CSV");
}

/** CSV text of `rows` with [key, header] columns (RFC 4180 quoting; empty for unknown). */
export function csvText(rows, columns) {
  const escape = (v) => {
    if (v === null || v === undefined || (typeof v === "number" && !Number.isFinite(v))) return "";
    const s = String(v);
    return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  const lines = [columns.map(([, label]) => escape(label)).join(",")];
  for (const row of rows) lines.push(columns.map(([key]) => escape(typeof key === "function" ? key(row) : row[key])).join(","));
  return lines.join("\n") + "\n";
}
