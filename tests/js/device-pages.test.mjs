// /compare's device lines, read by range from a pack (src/components/device-pages.js,
// src/data/_device_pages.py).
import assert from "node:assert/strict";
import {test} from "node:test";
import {deviceRows} from "../../src/components/device-pages.js";

const payload = (device, quotients) => ({exists: true, data: {device_id: quotients.map(() => device), quotient: quotients}});
// a pack as _device_pages.members writes it: a line per device, the index holding each line's [start, end)
const lines = [["hdd", payload("hdd", [3])], ["nvme", payload("nvme", [4, 5, 6])], ["ssd", payload("ssd", [1, 2, "naïve"])]];
const encoder = new TextEncoder();
const devices = {};
const parts = [];
let at = 0;
for (const [id, p] of lines) {
  const bytes = encoder.encode(JSON.stringify(p));
  devices[id] = [at, at + bytes.length];
  parts.push(bytes, encoder.encode("\n"));
  at += bytes.length + 1;
}
const pack = new Uint8Array(at);
let offset = 0;
for (const part of parts) {
  pack.set(part, offset);
  offset += part.length;
}
const index = {exists: true, pack: "q.jsonl", pack_bytes: pack.length, devices};
const URL_ = "https://site.example/_file/data/pages/q.0123abcd.jsonl";

/** A host: answers a Range with 206 (or the whole file with 200 when `ranges` is false). */
function host(log, {ranges = true, body = pack, status = null} = {}) {
  return async (url, {headers} = {}) => {
    const range = headers?.Range;
    log.push(range ?? "whole");
    if (status) return {status, headers: new Map(), arrayBuffer: async () => new ArrayBuffer(0)};
    if (!ranges) return {status: 200, headers: new Map(), arrayBuffer: async () => body.slice().buffer};
    const [, a, b] = /^bytes=(\d+)-(\d+)$/.exec(range);
    const slice = body.slice(Number(a), Number(b) + 1);
    return {status: 206, headers: new Map([["Content-Range", `bytes ${a}-${b}/${body.length}`]]), arrayBuffer: async () => slice.buffer};
  };
}

test("reads only the lines of the devices asked for, by range, each once for the page's life", async () => {
  const log = [];
  const options = {fetchImpl: host(log), cache: new Map()};
  const rows = await deviceRows(index, ["ssd", "nvme", "no-rows-device"], URL_, options);
  assert.deepEqual(rows.map((r) => [r.device_id, r.quotient]), [["ssd", 1], ["ssd", 2], ["ssd", "naïve"], ["nvme", 4], ["nvme", 5], ["nvme", 6]]);
  assert.deepEqual(log, [`bytes=${devices.ssd[0]}-${devices.ssd[1] - 1}`, `bytes=${devices.nvme[0]}-${devices.nvme[1] - 1}`]);
  await deviceRows(index, ["ssd", "hdd"], URL_, options);
  assert.deepEqual(log.slice(2), [`bytes=0-${devices.hdd[1] - 1}`], "ssd not fetched again");
});

test("a host that ignores Range: the whole pack once, every device's line cut from it", async () => {
  const log = [];
  const options = {fetchImpl: host(log, {ranges: false}), cache: new Map()};
  assert.deepEqual((await deviceRows(index, ["nvme"], URL_, options)).map((r) => r.quotient), [4, 5, 6]);
  assert.deepEqual((await deviceRows(index, ["hdd", "ssd"], URL_, options)).map((r) => r.quotient), [3, 1, 2, "naïve"]);
  assert.deepEqual(log, [`bytes=${devices.nvme[0]}-${devices.nvme[1] - 1}`], "one request");
});

test("a mart not built, or no device asked for, fetches nothing", async () => {
  const log = [];
  const options = {fetchImpl: host(log), cache: new Map()};
  assert.deepEqual(await deviceRows({exists: false, devices: {}}, ["ssd"], URL_, options), []);
  assert.deepEqual(await deviceRows(null, ["ssd"], URL_, options), []);
  assert.deepEqual(await deviceRows(index, [], URL_, options), []);
  assert.deepEqual(log, []);
});

test("a pack of another build, or an error, is an error (not 'no rows') and is asked for again next time", async () => {
  const log = [];
  const cache = new Map();
  const longer = new Uint8Array(pack.length + 5);
  longer.set(pack);
  await assert.rejects(deviceRows(index, ["hdd"], URL_, {fetchImpl: host(log, {body: longer}), cache}), /the site was rebuilt/);
  await assert.rejects(deviceRows(index, ["hdd"], URL_, {fetchImpl: host(log, {ranges: false, body: longer}), cache}), /the site was rebuilt/);
  await assert.rejects(deviceRows(index, ["hdd"], URL_, {fetchImpl: host(log, {status: 404}), cache}), /HTTP 404/);
  const rows = await deviceRows(index, ["hdd"], URL_, {fetchImpl: host(log), cache});
  assert.deepEqual(rows.map((r) => r.quotient), [3]);
  assert.equal(log.length, 4);
});
