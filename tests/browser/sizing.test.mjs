// The sizing calculator in real Chromium: inputs drive the answer, the URL reproduces it,
// bad input gets a message next to the field and never NaN / Infinity.
import assert from "node:assert/strict";
import {join} from "node:path";
import {after, before, test} from "node:test";
import {ROOT, TIMER_POLLING, launchBrowser, openPage, screenshot, startServer} from "./harness.mjs";

const DIST = process.env.IOPSCOPE_DIST || join(ROOT, "dist");
let browser;
let server;
before(async () => {
  browser = await launchBrowser();
  server = await startServer(DIST);
});
after(async () => {
  await browser?.close();
  server?.stop();
});

const summaries = (page) => page.locator(".sizing-summaries").innerText();

test("changing an input updates the answer, and the URL reproduces it", async () => {
  const {page, problems, close} = await openPage(browser, server.url, "/sizing", {ready: ".sizing-summaries li"});
  const before = await summaries(page);
  assert.match(before, /(IOPS|capacity|throughput|endurance|RAID minimum)-bound: \d+ drive/);
  const capacity = page.locator('input[name="capacity_tb"]');
  await capacity.fill("200");
  await capacity.dispatchEvent("input");
  await page.waitForFunction((old) => document.querySelector(".sizing-summaries")?.innerText !== old, before, TIMER_POLLING);
  const after = await summaries(page);
  assert.notEqual(after, before);
  assert.ok(page.url().includes("capacity_tb=200"), page.url());
  const shared = page.url();
  await screenshot(page, "sizing-edited");
  await close();
  assert.deepEqual(problems, []);

  const again = await openPage(browser, server.url, new URL(shared).pathname + new URL(shared).search, {ready: ".sizing-summaries li"});
  assert.equal(await summaries(again.page), after);
  assert.equal(await again.page.locator('input[name="capacity_tb"]').inputValue(), "200");
  await again.close();
  assert.deepEqual(again.problems, []);
});

test("bad input gets a message next to the field, never NaN or Infinity", async () => {
  const {page, problems, close} = await openPage(browser, server.url, "/sizing?front_iops=-5&read_pct=abc", {ready: ".field-error"});
  const messages = await page.locator(".field-error").allInnerTexts();
  assert.ok(messages.some((m) => m.includes("must be greater than 0")), messages.join("|"));
  assert.ok(messages.some((m) => m.includes("must be a number")), messages.join("|"));
  const text = await page.locator("main").innerText();
  assert.doesNotMatch(text, /\bNaN\b|Infinity/);
  await close();
  assert.deepEqual(problems, []);
});
