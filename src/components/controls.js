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
  return Inputs.select(options, {
    label, value,
    format: (v) => (v === ALL ? ALL : format ? format(v) : String(v)),
    disabled: values.length === 0
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
