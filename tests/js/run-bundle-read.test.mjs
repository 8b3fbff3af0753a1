// readRunBundle's order of reads (src/components/run-rows.js): a mart only some tools fill waits
// for the run's row of dim_runs and is skipped when the run has none of those tools; with
// byTools: false (the run page's first read) every mart is asked for at once.
import assert from "node:assert/strict";
import {test} from "node:test";
import {readRunBundle} from "../../src/components/run-rows.js";

const column = (name) => ({name, type: "VARCHAR"});
const INDEX = {
  marts: [
    {name: "dim_runs", key: "run_id", rows: 1, columns: [column("run_id"), column("tools")]},
    {name: "fct_fio_results", key: "run_id", rows: 1, tools: ["fio"], columns: [column("run_id"), column("iops")]},
    {name: "fct_tpcc_results", key: "run_id", rows: 1, tools: ["go-tpc"], columns: [column("run_id"), column("tpm")]}
  ],
  dims: {},
  run_row_limit: null
};

/** A read stub: records which marts were asked for, before and after dim_runs answered. */
function recorder() {
  const asked = [];
  let answer;
  const runRow = new Promise((resolve) => { answer = () => resolve([{run_id: "r", tools: "fio"}]); });
  const read = (mart) => {
    asked.push(mart.name);
    if (mart.name === "dim_runs") return runRow;
    return Promise.resolve(mart.name === "fct_fio_results" ? [{run_id: "r", iops: "9"}] : []);
  };
  return {asked, read, answer};
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

test("by tools: the results wait for the run's row, and a mart of other tools is never read", async () => {
  const {asked, read, answer} = recorder();
  const bundle = readRunBundle("r", {index: INDEX, open: null, read});
  await settle();
  assert.deepEqual(asked, ["dim_runs"], "only dim_runs before the run's row is known");
  answer();
  const result = await bundle;
  assert.deepEqual(asked, ["dim_runs", "fct_fio_results"]);
  assert.deepEqual(Object.keys(result.tables).sort(), ["dim_runs", "fct_fio_results"]);
});

test("byTools false: every mart at once, the same rows", async () => {
  const {asked, read, answer} = recorder();
  const bundle = readRunBundle("r", {index: INDEX, open: null, read, byTools: false});
  await settle();
  assert.deepEqual(asked.sort(), ["dim_runs", "fct_fio_results", "fct_tpcc_results"], "nothing waits for dim_runs");
  answer();
  const result = await bundle;
  assert.deepEqual(Object.keys(result.tables).sort(), ["dim_runs", "fct_fio_results"], "a mart without the run's rows adds nothing");
  assert.deepEqual(result.tables.fct_fio_results.data.iops, ["9"]);
});

test("a dimension named only by some marts' rows is read for those rows only (a fio run reads no TPC-C sweeps)", async () => {
  const index = {
    marts: [
      {name: "fct_fio_results", key: "run_id", rows: 1, columns: [column("run_id"), column("device_id")]},
      {name: "fct_tpcc_results", key: "run_id", rows: 1, columns: [column("run_id"), column("device_id")]},
      {name: "dim_devices", key: "device_id", rows: 2, columns: [column("device_id")]},
      {name: "fct_tpcc_sweep_knees", key: "device_id", rows: 2, columns: [column("device_id"), column("knee")]}
    ],
    dims: {
      dim_devices: {key: "device_id", sources: ["device_id"], picked_by: null},
      fct_tpcc_sweep_knees: {key: "device_id", sources: ["device_id"], picked_by: ["fct_tpcc_results"]}
    },
    run_row_limit: null
  };
  const rowsOf = {fio: {fct_fio_results: [{run_id: "fio", device_id: "ssd"}]}, tpcc: {fct_tpcc_results: [{run_id: "tpcc", device_id: "hdd"}]}};
  for (const run of ["fio", "tpcc"]) {
    const asked = [];
    const read = (mart, key, value) => {
      asked.push([mart.name, JSON.stringify(value)]);
      if (key === "run_id") return Promise.resolve(rowsOf[run][mart.name] ?? []);
      return Promise.resolve(value.map((v) => ({device_id: v, knee: "k"})));
    };
    const bundle = await readRunBundle(run, {index, open: null, read});
    const device = run === "fio" ? "ssd" : "hdd";
    assert.deepEqual(asked.filter(([name]) => !name.startsWith("fct_") || name === "fct_tpcc_sweep_knees"),
      [["dim_devices", JSON.stringify([device])], ...(run === "tpcc" ? [["fct_tpcc_sweep_knees", JSON.stringify([device])]] : [])], run);
    assert.equal(Boolean(bundle.tables.fct_tpcc_sweep_knees), run === "tpcc", run);
  }
});
