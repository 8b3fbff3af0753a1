// Mart payloads into rows (src/components/data.js).
import assert from "node:assert/strict";
import {test} from "node:test";
import {rowsOf, rowsWhere} from "../../src/components/data.js";

const payload = () => ({
  exists: true,
  data: {
    device_a_id: {dict: ["ssd", "hdd", "nvme"], codes: [0, 1, 2, 0, -1, 2]},
    metric: ["iops", "iops", "tpm", "tpm", "iops", "iops"],
    quotient: [1.5, 0.5, 2, null, 3, 4]
  }
});

test("rowsWhere builds the rows rowsOf would, only those whose field is wanted, in order", () => {
  const all = rowsOf(payload());
  for (const wanted of [["ssd"], ["nvme", "ssd"], ["hdd"], [], ["none"], [null]]) {
    assert.deepEqual(rowsWhere(payload(), "device_a_id", wanted), all.filter((r) => wanted.includes(r.device_a_id)), JSON.stringify(wanted));
  }
  assert.deepEqual(rowsWhere(payload(), "quotient", [2, 4]).map((r) => r.device_a_id), ["nvme", "nvme"]);
});

test("rowsWhere: a missing mart or column has no rows", () => {
  assert.deepEqual(rowsWhere({exists: false}, "device_a_id", ["ssd"]), []);
  assert.deepEqual(rowsWhere(payload(), "no_such_column", ["ssd"]), []);
  assert.deepEqual(rowsWhere(null, "device_a_id", ["ssd"]), []);
});
