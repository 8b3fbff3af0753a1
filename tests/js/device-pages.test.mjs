// /compare's per-device files (src/components/device-pages.js, src/data/_device_pages.py).
import assert from "node:assert/strict";
import {test} from "node:test";
import {deviceRows} from "../../src/components/device-pages.js";

const payload = (device, quotients) => ({exists: true, data: {device_id: quotients.map(() => device), quotient: quotients}});
const index = {exists: true, devices: {ssd: "q/ssd.json", hdd: "q/hdd.json", nvme: "q/nvme.json"}};
const files = {"q/ssd.json": payload("ssd", [1, 2]), "q/hdd.json": payload("hdd", [3]), "q/nvme.json": payload("nvme", [4, 5, 6])};

function fakeFetch(log, {failing = new Set()} = {}) {
  return async (url) => {
    log.push(url);
    if (failing.has(url)) return {ok: false, status: 404};
    return {ok: true, json: async () => files[url]};
  };
}

test("fetches only the files of the devices asked for, each once for the page's life", async () => {
  const log = [];
  const options = {fetchImpl: fakeFetch(log), urlOf: (f) => f, cache: new Map()};
  const rows = await deviceRows(index, ["nvme", "ssd", "no-rows-device"], options);
  assert.deepEqual(rows.map((r) => [r.device_id, r.quotient]), [["nvme", 4], ["nvme", 5], ["nvme", 6], ["ssd", 1], ["ssd", 2]]);
  assert.deepEqual(log, ["q/nvme.json", "q/ssd.json"]);
  await deviceRows(index, ["ssd", "hdd"], options);
  assert.deepEqual(log, ["q/nvme.json", "q/ssd.json", "q/hdd.json"], "ssd not fetched again");
});

test("a mart not built, or no device asked for, fetches nothing", async () => {
  const log = [];
  const options = {fetchImpl: fakeFetch(log), urlOf: (f) => f, cache: new Map()};
  assert.deepEqual(await deviceRows({exists: false, devices: {}}, ["ssd"], options), []);
  assert.deepEqual(await deviceRows(null, ["ssd"], options), []);
  assert.deepEqual(await deviceRows(index, [], options), []);
  assert.deepEqual(log, []);
});

test("a file that cannot be read is an error, not 'no rows', and is asked for again next time", async () => {
  const log = [];
  const cache = new Map();
  await assert.rejects(deviceRows(index, ["hdd"], {fetchImpl: fakeFetch(log, {failing: new Set(["q/hdd.json"])}), urlOf: (f) => f, cache}), /q\/hdd\.json: HTTP 404/);
  const rows = await deviceRows(index, ["hdd"], {fetchImpl: fakeFetch(log), urlOf: (f) => f, cache});
  assert.deepEqual(rows.map((r) => r.quotient), [3]);
  assert.equal(log.length, 2);
});
