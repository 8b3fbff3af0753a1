// Pure functions: rows of marts.fct_fio_results in, Vega-Lite specs out. No DOM, no fetching.

const tooltip = [
  {field: "device", title: "Device"},
  {field: "job_name", title: "Job"},
  {field: "rw", title: "rw"},
  {field: "direction", title: "Direction"},
  {field: "outstanding_ios", title: "Outstanding IOs"},
  {field: "iops", title: "IOPS", format: ",.0f"},
  {field: "bw_mib_per_s", title: "MiB/s", format: ",.1f"},
  {field: "clat_p99_us", title: "p99 clat (µs)", format: ",.0f"},
  {field: "run_id", title: "Run"},
  {field: "source_path", title: "File"}
];

/** IOPS by outstanding IOs, one line per device and direction (log-2 x axis). */
export function iopsVsOutstandingIos(rows, {title = "IOPS vs outstanding IOs"} = {}) {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title,
    width: "container",
    height: 320,
    data: {values: rows},
    mark: {type: "line", point: true},
    encoding: {
      x: {field: "outstanding_ios", type: "quantitative", scale: {type: "log", base: 2},
          title: "Outstanding IOs (iodepth × numjobs)"},
      y: {field: "iops", type: "quantitative", title: "IOPS (IO/s)"},
      color: {field: "series", type: "nominal", title: "Device · direction"},
      tooltip
    },
    transform: [{calculate: "datum.device + ' · ' + datum.direction", as: "series"}]
  };
}

/** p99 completion latency against IOPS: where latency turns up as load rises. */
export function latencyVsIops(rows, {title = "p99 completion latency vs IOPS"} = {}) {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title,
    width: "container",
    height: 320,
    data: {values: rows},
    mark: {type: "line", point: true},
    encoding: {
      x: {field: "iops", type: "quantitative", title: "IOPS (IO/s)"},
      y: {field: "clat_p99_us", type: "quantitative", title: "p99 completion latency (µs)"},
      color: {field: "series", type: "nominal", title: "Device · direction"},
      order: {field: "outstanding_ios", type: "quantitative"},
      tooltip
    },
    transform: [{calculate: "datum.device + ' · ' + datum.direction", as: "series"}]
  };
}
