// The SQL console cannot reach another host. A link's ?q= runs on load, so each statement
// that could make DuckDB-WASM (in its worker) or the page talk to another origin is opened as
// /sql?q=... against a listener on another loopback address (127.0.0.2, another origin than
// the site's 127.0.0.1): read_text, read_csv, ATTACH, COPY ... TO, an extension install from a
// repository set to the listener, and a fetch() from the page itself. The listener must record
// no request at all, every statement must end in an error shown on the page, and an ordinary
// query must still work afterwards.
//
// No request routing here (the harness's openPage aborts foreign requests inside the browser,
// which would hide what DuckDB and the Content-Security-Policy do on their own); a control
// request from a page without the policy shows that the listener is reachable.
import assert from "node:assert/strict";
import {createServer} from "node:http";
import {after, before, describe, test} from "node:test";
import {TIMER_POLLING, launchBrowser, startServer} from "./harness.mjs";

const LISTEN_HOST = "127.0.0.2";

let browser;
let site;
let listener;
const seen = [];

before(async () => {
  listener = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(200, {"content-type": "text/plain", "access-control-allow-origin": "*"});
    res.end("reached\n");
  });
  await new Promise((resolve, reject) => listener.listen(0, LISTEN_HOST, resolve).on("error", reject));
  browser = await launchBrowser();
  site = await startServer();
}, {timeout: 60000});

after(async () => {
  await browser?.close();
  site?.stop();
  listener?.close();
});

const target = (path) => `http://${LISTEN_HOST}:${listener.address().port}/${path}`;

/** Open /sql?q=<sql>, wait for the statement to finish; {status, error, rows, violations}. */
async function runLinked(sql) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const violations = [];
  page.on("console", (msg) => {
    if (/Content.Security.Policy/i.test(msg.text())) violations.push(msg.text());
  });
  try {
    await page.goto(new URL(`sql?${new URLSearchParams({q: sql})}`, site.url).href, {waitUntil: "load"});
    await page.waitForFunction(() => {
      const status = document.querySelector("#sql-status")?.textContent ?? "";
      return status === "error" || /row/.test(status);
    }, null, {...TIMER_POLLING, timeout: 90000});
    return {
      status: await page.locator("#sql-status").innerText(),
      error: await page.locator("#sql-error").count() ? await page.locator("#sql-error").innerText() : null,
      rows: await page.locator("#sql-output table tbody tr").count(),
      violations
    };
  } finally {
    await context.close();
  }
}

describe("the SQL console reaches no other host", () => {
  test("the listener is reachable from a page without the site's policy (control)", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(target("control"));
      assert.match(await page.locator("body").innerText(), /reached/);
    } finally {
      await context.close();
    }
    // (Chromium asks the new origin for its favicon too, perhaps a moment later)
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.ok(seen.splice(0).includes("GET /control"));
  });

  const statements = [
    ["read_text", () => `SELECT * FROM read_text('${target("read_text.txt")}')`],
    ["read_csv", () => `SELECT * FROM read_csv('${target("read_csv.csv")}')`],
    ["ATTACH", () => `ATTACH '${target("attach.duckdb")}' AS remote`],
    ["COPY TO", () => `COPY (SELECT 42 AS answer) TO '${target("copy.csv")}'`],
    ["extension from the listener", () => `SET custom_extension_repository = '${target("ext")}'; INSTALL httpfs`],
    ["switching access back on", () => `SET enable_external_access = true; SELECT * FROM read_text('${target("again.txt")}')`]
  ];
  for (const [name, sql] of statements) {
    test(`${name}: refused, nothing reaches the listener`, async () => {
      const result = await runLinked(sql());
      assert.equal(result.status, "error", JSON.stringify(result));
      assert.ok(result.error, "the page shows the error");
      assert.deepEqual(seen.splice(0), [], `requests reached ${LISTEN_HOST}`);
    }, {timeout: 120000});
  }

  test("a fetch() from the page itself is refused by the Content-Security-Policy", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(new URL("sql", site.url).href, {waitUntil: "load"});
      const outcome = await page.evaluate(async (url) => {
        try {
          await fetch(url, {mode: "no-cors"});
          return "sent";
        } catch (error) {
          return `refused: ${error.message}`;
        }
      }, target("page-fetch"));
      assert.match(outcome, /^refused/);
      const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute("content");
      assert.match(policy, /connect-src 'self'/);
    } finally {
      await context.close();
    }
    assert.deepEqual(seen.splice(0), []);
  });

  test("an ordinary query still works", async () => {
    const result = await runLinked("SELECT count(*) AS runs FROM marts.dim_runs");
    assert.match(result.status, /1 row/, JSON.stringify(result));
    assert.equal(result.rows, 1);
    assert.deepEqual(result.violations, []);
    assert.deepEqual(seen.splice(0), []);
  }, {timeout: 120000});
});
