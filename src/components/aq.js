// Arquero for client-side table transforms, from its UMD build (the ESM entry drags node:
// built-ins into the browser bundle). Imported only by the pages that transform tables, so the
// other pages do not download it.
import aqModule from "arquero/dist/arquero.min.js";

// The UMD build exposes its API on the default export.
export const aq = aqModule?.table ? aqModule : globalThis.aq;
export const op = aq.op;

/**
 * Distinct non-empty values of each field per group: {groupValue: {field: [values...]}}.
 * Used for "which hosts / configs / kits does each compared item's data come from".
 */
export function distinctSets(rows, groupField, fields) {
  if (rows.length === 0) return {};
  const present = fields.filter((f) => rows.some((r) => f in r));
  const table = aq.from(rows.map((r) => Object.fromEntries([[groupField, r[groupField]], ...present.map((f) => [f, r[f] ?? null])])));
  const rolled = table.groupby(groupField).rollup(Object.fromEntries(present.map((f) => [f, op.array_agg_distinct(f)])));
  const out = {};
  for (const row of rolled.objects()) {
    out[row[groupField]] = Object.fromEntries(present.map((f) => [f, row[f].filter((v) => v !== null && v !== undefined && v !== "").sort()]));
  }
  return out;
}
