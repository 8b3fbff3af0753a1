import {chromium} from "playwright-core";
const browser = await chromium.launch({executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu"]});
const pages = process.argv.slice(2);
for (const width of [1400, 390]) {
  for (const path of pages) {
    const context = await browser.newContext({viewport: {width, height: 900}});
    const page = await context.newPage();
    const errors = [];
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`http://127.0.0.1:8765${path}`, {waitUntil: "load"});
    await page.waitForTimeout(2500);
    for (let y = 0; y < 6; y++) { await page.mouse.wheel(0, 1500); await page.waitForTimeout(400); }
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(800);
    const name = `/tmp/shots/${width}-${path.replace(/[^a-z0-9]+/gi, "_")}.png`;
    await page.screenshot({path: name, fullPage: width === 390 ? false : false});
    const scrollW = await page.evaluate(() => document.documentElement.scrollWidth);
    console.log(width, path, "errors:", errors.length, errors.slice(0, 2).join(" | "), "scrollWidth", scrollW, name);
    await context.close();
  }
}
await browser.close();
