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

import {compareKeys, filesFor, partIndex} from "../../src/components/run-rows.js";

test("keys compare as DuckDB sorts them: text by UTF-8 bytes, numbers by value", () => {
  assert.ok(compareKeys("run-0001", "run-0002") < 0);
  assert.ok(compareKeys("run-10", "run-9") < 0, "text, not numbers");
  assert.equal(compareKeys("same", "same"), 0);
  assert.ok(compareKeys("run", "run-1") < 0, "a prefix first");
  // U+FFFF is EF BF BF in UTF-8, an emoji F0 9F ...: after it in DuckDB, before it in JavaScript's own order
  assert.ok("\u{1F600}" < "\uFFFF");
  assert.ok(compareKeys("\uFFFF", "\u{1F600}") < 0);
  assert.ok(compareKeys(10, 9) > 0 && compareKeys(2, 2) === 0);
});

test("a key's part is the last whose first key is not above it; the first part takes anything before", () => {
  const parts = [{first: null}, {first: "run-0100"}, {first: "run-0500"}, {first: "run-0900"}];
  assert.equal(partIndex(parts, "run-0000"), 0);
  assert.equal(partIndex(parts, "a"), 0, "before every key of the build");
  assert.equal(partIndex(parts, "run-0100"), 1, "a part's first key is its own");
  assert.equal(partIndex(parts, "run-0499"), 1);
  assert.equal(partIndex(parts, "run-0500"), 2);
  assert.equal(partIndex(parts, "run-0900"), 3);
  assert.equal(partIndex(parts, "zzz"), 3);
  assert.equal(partIndex([{first: null}], "x"), 0);
});

test("filesFor: a whole mart is one file; a mart in parts reads each key from its part", () => {
  const whole = {name: "dim_hosts", rows: 3, layout: {size: 10}};
  assert.deepEqual(filesFor(whole, ["h1", "h2"]), [{file: "dim_hosts.parquet", value: ["h1", "h2"], rows: 3, layout: {size: 10}}]);
  assert.deepEqual(filesFor({...whole, parts: null}, "h1"), [{file: "dim_hosts.parquet", value: "h1", rows: 3, layout: {size: 10}}]);
  const parted = {name: "fct_cpu_samples", rows: 30, layout: null, parts: [
    {file: "fct_cpu_samples/part-a.parquet", first: null, rows: 10, layout: {size: 1}},
    {file: "fct_cpu_samples/part-b.parquet", first: "m", rows: 20, layout: {size: 2}}
  ]};
  assert.deepEqual(filesFor(parted, "n"), [{file: "fct_cpu_samples/part-b.parquet", value: "n", rows: 20, layout: {size: 2}}]);
  assert.deepEqual(filesFor(parted, ["a", "z", "b"]), [
    {file: "fct_cpu_samples/part-a.parquet", value: ["a", "b"], rows: 10, layout: {size: 1}},
    {file: "fct_cpu_samples/part-b.parquet", value: ["z"], rows: 20, layout: {size: 2}}
  ]);
});
