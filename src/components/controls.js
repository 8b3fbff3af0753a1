// Observable Inputs whose initial value comes from the URL, plus the matching row filters.
import * as Inputs from "@observablehq/inputs";
import {distinct} from "./data.js";
import {param, paramList, within} from "./state.js";

export const ALL = "(all)";

/** A select over the distinct values of `field` with an "(all)" entry; URL parameter `name`. */
export function conditionSelect(rows, field, {label, name = field, format, fallback = ALL} = {}) {
  const values = distinct(rows, field);
  const options = [ALL, ...values];
  const wanted = param(name, String(fallback));
  const value = options.find((o) => String(o) === wanted) ?? ALL;
  return select(options, {
    label, value,
    format: (v) => (v === ALL ? ALL : format ? format(v) : String(v)),
    disabled: values.length === 0
  });
}

// Inputs' class names (versioned, "inputs-3a86ea"), read from one empty select so ours match its CSS.
let inputsClass = null;
let selects = 0;

/**
 * A drop-down like Inputs.select (same markup and classes, `value` the chosen option itself,
 * an "input" event on change, for Generators.input), built with the DOM directly: Inputs renders
 * every option through a template, which took a second for the four 1,400-device selects of
 * /compare at 10,000 runs (docs/performance.md). `format(option, i, options)` is its text;
 * `value` the option chosen at first (the first when it is not among them).
 */
export function select(options, {label, value, format = (v) => String(v), disabled = false} = {}) {
  inputsClass ??= Inputs.select([]).className;
  const form = document.createElement("form");
  form.className = inputsClass;
  const input = document.createElement("select");
  input.className = `${inputsClass}-input`;
  input.name = "input";
  input.id = `${inputsClass}-select-${++selects}`;
  input.disabled = disabled === true;
  if (label !== undefined && label !== null && label !== "") {
    const caption = document.createElement("label");
    caption.htmlFor = input.id;
    caption.append(label);
    form.append(caption);
  }
  const fragment = document.createDocumentFragment();
  options.forEach((option, i) => fragment.append(new Option(String(format(option, i, options) ?? ""), String(i))));
  input.append(fragment);
  const at = options.indexOf(value);
  input.value = String(at >= 0 ? at : 0);
  form.append(input);
  let current = null;
  const read = () => { current = input.value === "" ? null : options[Number(input.value)]; };
  read();
  // as Inputs does: "change" stands in for "input" until the browser sends a real one
  let trustedInput = false;
  form.addEventListener("input", (event) => { trustedInput ||= event.isTrusted; read(); });
  form.addEventListener("change", () => { if (!trustedInput) form.dispatchEvent(new Event("input", {bubbles: true})); });
  form.addEventListener("submit", (event) => event.preventDefault());
  return Object.defineProperty(form, "value", {
    get: () => current,
    set(v) {
      const i = options.indexOf(v);
      if (i >= 0) input.value = String(i);
      read();
    }
  });
}

/** Rows whose `field` equals the select's value (all rows for "(all)"). */
export function applySelect(rows, field, value) {
  if (value === ALL || value === null || value === undefined) return rows;
  return rows.filter((r) => String(r[field]) === String(value));
}

/** URL value of a select: null for "(all)". */
export function selectParam(value) {
  return value === ALL ? null : value;
}

/** Checkboxes over `options` (default all checked); URL parameter `name` (repeated). */
export function multiCheckbox(options, {label, name, format, defaults = options} = {}) {
  const value = within(paramList(name, defaults.map(String)), options.map(String));
  const byString = new Map(options.map((o) => [String(o), o]));
  return Inputs.checkbox(options, {label, value: value.map((v) => byString.get(v)), format});
}

/** A radio or select with a fixed list of [value, label] choices; URL parameter `name`. */
export function choice(choices, {label, name, fallback = choices[0][0], radio = true} = {}) {
  const values = choices.map(([v]) => v);
  const labels = new Map(choices);
  const wanted = param(name, fallback);
  const value = values.includes(wanted) ? wanted : fallback;
  const options = {label, value, format: (v) => labels.get(v) ?? v};
  return radio ? Inputs.radio(values, options) : Inputs.select(values, options);
}

export {Inputs};
