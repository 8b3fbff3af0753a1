// The harness must be able to fail: a page that misbehaves on purpose is caught on every count.
import assert from "node:assert/strict";
import {join} from "node:path";
import {after, before, test} from "node:test";
import {ROOT, launchBrowser, openPage, startServer} from "./harness.mjs";

let browser;
let server;
before(async () => {
  browser = await launchBrowser();
  server = await startServer(join(ROOT, "tests/browser/fixtures/broken"));
});
after(async () => {
  await browser?.close();
  server?.stop();
});

test("a deliberately broken page is reported", async () => {
  const {problems, close} = await openPage(browser, server.url, "/", {ready: "#never-there", timeout: 1500});
  await close();
  const text = problems.join("\n");
  assert.match(text, /console error: deliberate console error/);
  assert.match(text, /page error: deliberate page error/);
  assert.match(text, /foreign request: https:\/\/cdn\.jsdelivr\.net/);
  assert.match(text, /HTTP 404: .*missing-on-purpose\.png/);
  assert.match(text, /never became ready/);
});
