// Vega-Lite spec of the IOPS-vs-capacity plane: pure function, rows in, spec out.
import {deviceColorEncoding} from "./palette.js";

/**
 * Per device, the (usable TB, deliverable IOPS) that N drives reach, as a line of points; the
 * requirement as a cross. Log-log, so an HDD line (low IOPS, capacity to spare) and an SSD line
 * (IOPS to spare) show the two eras side by side.
 */
export function sizingPlane(points, requirement, {colorOf} = {}) {
  const layers = [
    {
      mark: {type: "line", point: true, clip: true},
      encoding: {
        x: {field: "usable_tb", type: "quantitative", scale: {type: "log"}, title: "Usable capacity (TB)"},
        y: {field: "iops", type: "quantitative", scale: {type: "log"}, title: "Deliverable front-end IOPS (IO/s)"},
        color: colorOf ? deviceColorEncoding(points, {field: "device", idField: "device_id", colorOf, legend: {orient: "bottom", columns: 1, labelLimit: 280}})
                       : {field: "device", type: "nominal", title: "Device"},
        order: {field: "drives", type: "quantitative"},
        tooltip: [
          {field: "device", title: "Device"},
          {field: "drives", title: "Drives in the array"},
          {field: "usable_tb", title: "Usable TB", format: ",.2f"},
          {field: "iops", title: "Deliverable IOPS", format: ",.0f"}
        ]
      }
    }
  ];
  if (requirement) {
    layers.push(
      {data: {values: [requirement]}, mark: {type: "rule", strokeDash: [4, 4], color: "#888"},
       encoding: {x: {field: "usable_tb", type: "quantitative"}}},
      {data: {values: [requirement]}, mark: {type: "rule", strokeDash: [4, 4], color: "#888"},
       encoding: {y: {field: "iops", type: "quantitative"}}},
      {data: {values: [{...requirement, label: "requirement"}]},
       mark: {type: "point", shape: "cross", size: 200, filled: true, color: "black"},
       encoding: {x: {field: "usable_tb", type: "quantitative"}, y: {field: "iops", type: "quantitative"},
                  tooltip: [{field: "label", title: "Point"}, {field: "usable_tb", title: "Capacity needed (TB)", format: ",.2f"},
                            {field: "iops", title: "IOPS needed", format: ",.0f"}]}}
    );
  }
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: {text: "IOPS vs capacity: what N drives cover", anchor: "start",
            subtitle: ["Each point is an array of N drives; the cross is", "the requirement: a device covers it above and right of it."]},
    width: "container",
    height: 360,
    data: {values: points},
    layer: layers
  };
}
