// src/components/charts.js lineChart: the value axis of a series that is zero throughout.
import assert from "node:assert/strict";
import {test} from "node:test";
import {lineChart} from "../../src/components/charts.js";

function yScales(spec) {
  const found = [];
  JSON.stringify(spec, (key, value) => {
    if (value && typeof value === "object" && value.field === "cpu_iowait_pct" && value.type === "quantitative") found.push(value.scale);
    return value;
  });
  return found;
}

const rows = (values) => values.map((v, i) => ({device_id: "d1", connections: 2 ** i, cpu_iowait_pct: v}));
const chart = (values) => lineChart({rows: rows(values), title: "CPU iowait", x: {field: "connections", title: "Connections"},
                                     y: {field: "cpu_iowait_pct", title: "CPU iowait (%)"}});

test("a series of zeros gets the axis 0 to 1, not Vega's degenerate [0, 0]", () => {
  const scales = yScales(chart([0, 0, 0]));
  assert.ok(scales.length > 0);
  for (const scale of scales) assert.deepEqual(scale.domain, [0, 1]);
});

test("any other series keeps its own domain", () => {
  for (const values of [[0, 0.5, 0], [3, 3, 3]]) {
    const scales = yScales(chart(values));
    assert.ok(scales.length > 0);
    for (const scale of scales) assert.equal(scale.domain, undefined, String(values));
  }
});
