// Input forms of the sizing page. Each form is an element with a `.value` that fires "input"
// events (so Framework's view() reads it), keeps every field in the URL, and shows the
// validation message next to the field it concerns (never NaN or Infinity downstream).
import {param, setParams} from "./state.js";
import {el} from "./ui.js";

function toNumber(text) {
  const t = String(text ?? "").trim();
  if (t === "") return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : t; // a non-number stays text, so validation can name it
}

/**
 * A form of fields [{name, label, unit, type: "number"|"select", options: [[value, label]], fallback}],
 * validated by `validate(values) -> {name: message}`. URL parameter = field name.
 */
export function fieldForm(fields, {validate = () => ({}), className = "sizing-form"} = {}) {
  const form = el("form", {class: className, onsubmit: (e) => e.preventDefault()});
  const controls = new Map();
  const messages = new Map();
  for (const f of fields) {
    const initial = param(f.name, f.fallback === undefined ? "" : String(f.fallback));
    let control;
    if (f.type === "select") {
      control = el("select", {name: f.name},
        f.options.map(([v, label]) => el("option", {value: v, selected: String(v) === initial}, label)));
    } else {
      control = el("input", {name: f.name, type: "text", inputmode: "decimal", value: initial,
                             placeholder: f.placeholder ?? "", size: 10});
    }
    const message = el("span", {class: "field-error", role: "alert"});
    controls.set(f.name, control);
    messages.set(f.name, message);
    form.append(el("label", {class: "field"}, el("span", {class: "field-label"}, f.label),
                   el("span", {class: "field-input"}, control, f.unit ? el("span", {class: "field-unit"}, f.unit) : null, message)));
  }
  const read = () => {
    const values = {};
    for (const f of fields) {
      const raw = controls.get(f.name).value;
      values[f.name] = f.type === "select" ? raw : toNumber(raw);
    }
    return values;
  };
  const update = () => {
    const values = read();
    const errors = validate(values);
    for (const [name, message] of messages) message.textContent = errors[name] ?? "";
    form.value = {values, errors, valid: Object.keys(errors).length === 0};
    const defaults = Object.fromEntries(fields.map((f) => [f.name, f.fallback === undefined ? "" : String(f.fallback)]));
    setParams(Object.fromEntries(fields.map((f) => [f.name, String(controls.get(f.name).value)])), defaults);
  };
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  update();
  return form;
}

/**
 * Editable per-device figures: one row per device, one input per field, prefilled with the
 * catalog / warehouse figure; a Restore button puts the original back. URL: o.<device>.<field>.
 */
export function deviceFiguresForm(devices, fields, {validate = () => ({})} = {}) {
  const form = el("form", {class: "device-figures", onsubmit: (e) => e.preventDefault()});
  const table = el("table", {class: "device-figures-table"});
  table.append(el("thead", {}, el("tr", {}, el("th", {}, "Device"), el("th", {}, "IOPS source"),
    fields.map((f) => el("th", {}, f.label)), el("th", {}, ""))));
  const body = el("tbody");
  table.append(body);
  form.append(table);
  const rows = [];
  for (const d of devices) {
    const inputs = new Map();
    const errorCell = el("td", {class: "field-error", role: "alert"});
    const tr = el("tr", {}, el("td", {}, d.label), el("td", {}, el("span", {class: `badge source-${d.iops_source}`}, d.iops_source)));
    for (const f of fields) {
      const original = d.defaults[f.name];
      const key = `o.${d.device_id}.${f.name}`;
      const input = el("input", {type: "text", inputmode: "decimal", size: 8, name: key,
                                 value: param(key, original === null || original === undefined ? "" : String(original)),
                                 placeholder: original === null || original === undefined ? "unknown" : ""});
      inputs.set(f.name, {input, original, key});
      tr.append(el("td", {}, input));
    }
    const restore = el("button", {type: "button", title: "Put the catalog / measured figures back",
                                  onclick: () => {
                                    for (const {input, original} of inputs.values()) input.value = original ?? "";
                                    form.dispatchEvent(new Event("input"));
                                  }}, "Restore");
    tr.append(el("td", {}, restore), errorCell);
    body.append(tr);
    rows.push({device: d, inputs, errorCell});
  }
  const update = () => {
    const value = [];
    const url = {};
    const defaults = {};
    for (const {device, inputs, errorCell} of rows) {
      const figures = {};
      for (const [name, {input, original, key}] of inputs) {
        const v = toNumber(input.value);
        figures[name] = v === undefined ? null : v;
        url[key] = input.value;
        defaults[key] = original === null || original === undefined ? "" : String(original);
      }
      const errors = validate(figures);
      errorCell.textContent = Object.entries(errors).map(([k, m]) => `${k}: ${m}`).join("; ");
      value.push({...device, figures, errors, edited: Object.keys(figures).some((k) => String(inputs.get(k).input.value) !== defaults[inputs.get(k).key])});
    }
    setParams(url, defaults);
    form.value = value;
  };
  form.addEventListener("input", update);
  update();
  return form;
}

/** A link that downloads `rows` as CSV (built in the browser, nothing is requested). */
export function csvDownload(rows, columns, filename = "iopscope-sizing.csv") {
  const escape = (v) => {
    if (v === null || v === undefined) return "";
    const s = String(v);
    return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  const lines = [columns.map(([, label]) => escape(label)).join(",")];
  for (const row of rows) lines.push(columns.map(([key]) => escape(row[key])).join(","));
  const url = URL.createObjectURL(new Blob([lines.join("\n") + "\n"], {type: "text/csv"}));
  return el("a", {href: url, download: filename, class: "csv-download"}, "Download CSV");
}
