// A run page says where its run sits in its sweep (marts.fct_tpcc_sweep_knees): which sweep,
// what stopped it, and whether the run is before, at or past the knee. Hand-made mart rows.
import assert from "node:assert/strict";
import {test} from "node:test";
import {kneePosition, sweepStops, sweepsOfResults} from "../../src/components/tpcc-data.js";

const fixed = {source_kind: "measured", study_id: null, host_id: "vm", device_id: "vda", db_config_id: null, db_server: "MariaDB",
  kit: "go-tpc", warehouses: 1, page_size_kib: 16, data_device_count: 1, array_layout: "single"};
const knee = (over) => ({...fixed, sweep_variable: "connections", buffer_pool_gib: 0.25, connections: null, min_load: 1, max_load: 8,
  knee_load: 4, knee_gain_to_next_pct: -8.2, knee_min_gain_pct: 5, is_knee_reached: true, first_failed_load: null,
  first_cpu_break_load: null, first_p95_break_load: null, first_log_write_break_load: null, ...over});

test("a result belongs to the sweep with its fixed conditions, buffer pool and a load inside the sweep", () => {
  const result = {...fixed, connections: 8, buffer_pool_gib: 0.25};
  const sweeps = [knee({}), knee({buffer_pool_gib: 0.016}), knee({kit: "tpcc-mysql"}), knee({max_load: 4}),
    knee({sweep_variable: "buffer_pool_gib", connections: 8, buffer_pool_gib: null, min_load: 0.016, max_load: 0.25})];
  const found = sweepsOfResults([result], sweeps);
  assert.equal(found.length, 2);
  assert.deepEqual(found.map((k) => k.sweep_variable).sort(), ["buffer_pool_gib", "connections"]);
  assert.equal(found.find((k) => k.sweep_variable === "connections").buffer_pool_gib, 0.25);
});

test("what stopped the sweep: every broken condition and the plateau, or null", () => {
  assert.deepEqual(sweepStops(knee({})), ["throughput plateau: the step after 4 connections gains -8.2 % (less than 5 %)"]);
  assert.deepEqual(sweepStops(knee({is_knee_reached: false, first_cpu_break_load: 16, cpu_limit_pct: 90, first_failed_load: 1})),
    ["a step failed at 1 connection", "CPU busy above 90 % from 16 connections"]);
  assert.equal(sweepStops(knee({is_knee_reached: false})), null);
});

test("before, at or past the knee", () => {
  assert.equal(kneePosition(2, knee({})), "before the knee");
  assert.equal(kneePosition(4, knee({})), "the knee");
  assert.equal(kneePosition(8, knee({})), "past the knee");
  assert.equal(kneePosition(8, knee({is_knee_reached: false})), null);
});
