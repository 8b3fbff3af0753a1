// The run page and the build must name a run's tool set the same way (src/data/_run_parquet.py
// tool_set; tests/python/test_site_loaders.py checks the Python side with the same cases).
import assert from "node:assert/strict";
import {test} from "node:test";
import {toolSet} from "../../src/components/run-rows.js";

test("tool sets: sorted, distinct, trimmed; none -> (none)", () => {
  assert.equal(toolSet(" mpstat,fio ,, iostat,fio"), "fio,iostat,mpstat");
  assert.equal(toolSet(null), "(none)");
  assert.equal(toolSet(""), "(none)");
  assert.equal(toolSet("go-tpc"), "go-tpc");
});
