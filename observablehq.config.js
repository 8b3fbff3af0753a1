// Observable Framework configuration for the iopscope site.
// Offline by design: no Google Fonts (globalStylesheets: []), no CDN imports (every library is
// installed from npm and imported by bare specifier), no telemetry (set in the environment).
import {existsSync, mkdirSync, readFileSync, writeFileSync} from "node:fs";
import {dirname, resolve} from "node:path";
import {fileURLToPath} from "node:url";
import {buildSync} from "esbuild";
import {linkFreshFiles} from "./sitebuild/link-files.js";
import {describeLoaderRuns, runLoadersSideBySide} from "./sitebuild/loaders.js";
import {siteOutput, siteRoot} from "./sitebuild/site-dirs.js";
import {builtDynamicPaths, recordDynamicPaths, warehousePaths} from "./sitebuild/warehouse-paths.js";

// (IOPSCOPE_SITE_ROOT and IOPSCOPE_DIST: a test or a second checkout builds elsewhere)
const root = siteRoot();
const output = siteOutput();

// Vega as ONE module: Framework serves each npm package as its own file, and vega-embed pulls in
// ~60 of them (vega-*, d3-*); a chart page waited ~1 s on those requests before drawing (six at
// a time per host over HTTP/1.1). esbuild (Framework's own dependency) bundles vega-embed with
// everything it imports into <root>/components/vendor/vega-embed.js (not in git: made here, before
// every build and preview, from the versions installed), which src/components/vega.js imports.
// Written only when its text changed, so a preview does not reload for nothing.
function bundleVega() {
  const here = dirname(fileURLToPath(import.meta.url));
  const out = resolve(root, "components", "vendor", "vega-embed.js");
  const {outputFiles} = buildSync({
    stdin: {contents: 'export {default} from "vega-embed";', resolveDir: here, sourcefile: "vega-embed-entry.js"},
    bundle: true, format: "esm", platform: "browser", minify: true, legalComments: "eof", write: false, logLevel: "error"
  });
  const text = outputFiles[0].text;
  if (existsSync(out) && readFileSync(out, "utf-8") === text) return;
  mkdirSync(dirname(out), {recursive: true});
  writeFileSync(out, text);
}
bundleVega();

// `observable build` only (a preview runs each loader when a page asks for its file): every data
// loader starts now, side by side, instead of one after another when the build reaches its files
// (sitebuild/loaders.js); dynamicPaths below waits for them before the build copies any file.
const building = process.argv[2] === "build";
const loaderRuns = building ? runLoadersSideBySide(root) : null;

// Content-Security-Policy carried by every page itself (static hosting sends no headers):
// the pages fetch only from this site (connect-src 'self'), whatever a link's ?q= asks the SQL
// console to do. 'unsafe-inline' scripts: Framework writes each page's cells as an inline
// module; 'unsafe-eval': Vega compiles chart expressions with Function(); 'wasm-unsafe-eval' and
// worker-src: DuckDB-WASM's module worker and its wasm, both served by this site; blob: for
// downloads made in the page (CSV, chart export: data the page made itself, no other host). A meta policy cannot set frame-ancestors.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline' 'unsafe-eval' 'wasm-unsafe-eval'",
  "worker-src 'self' blob:",
  "connect-src 'self' blob:",
  "img-src 'self' data: blob:",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "media-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'"
].join("; ");

export default {
  root,
  output,
  title: "iopscope",
  pages: [
    {name: "TPC-C", path: "/tpcc"},
    {name: "fio", path: "/fio"},
    {name: "Compare", path: "/compare"},
    {name: "Sizing", path: "/sizing"},
    {name: "Runs", path: "/runs/"},
    {name: "Configs", path: "/configs"},
    {name: "SQL", path: "/sql"},
    {name: "Data", path: "/downloads"}
  ],
  // Framework asks for these after every page of src/ is read, and copies data files only after
  // that: the loaders started above run during the first and are done before the second.
  // In a build, the files whose member the loaders left fresh in Framework's cache are linked
  // into the output here (sitebuild/link-files.js: a gigabyte Framework would copy at 10,000
  // runs); Framework gets the rest, and in a preview every path.
  dynamicPaths: async function* () {
    // (the marts' downloads and parts: src/data/_paths.py, sitebuild/warehouse-paths.js)
    if (!loaderRuns) {
      yield* await warehousePaths(root);
      return;
    }
    const report = describeLoaderRuns(await loaderRuns);
    if (report) process.stderr.write(`${report}\n`);
    // as the marts loader listed them, else (it failed: Framework runs it again) from _paths.py
    const paths = await builtDynamicPaths(root);
    // noted for the next build, which may update this output in place (sitebuild/update.js)
    recordDynamicPaths(root, paths);
    const {linked, bytes, rest} = linkFreshFiles(root, output, paths);
    process.stderr.write(`iopscope: ${linked} data files (${bytes} bytes) linked from the loaders' cache into ${output}, ${rest.length} left to Framework\n`);
    yield* rest;
  },
  // The default stylesheet list links fonts.googleapis.com: keep it empty and import the
  // Framework theme from our own stylesheet instead.
  globalStylesheets: [],
  style: "style.css",
  // The favicon (none: avoids a 404), and for keyboard users: a "skip to main content" link as
  // the first stop of every page, and no stop on the sidebar toggle (a checkbox hidden under the
  // open sidebar; the sidebar's links open it on focus, so the keyboard never needs it).
  head: `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<link rel="icon" href="data:,">
<script>
document.addEventListener("DOMContentLoaded", () => {
  const main = document.getElementById("observablehq-main");
  if (main) {
    main.tabIndex = -1;
    const skip = document.createElement("a");
    skip.className = "skip-link";
    skip.href = "#observablehq-main";
    skip.textContent = "Skip to main content";
    // focus and scroll by hand: the 404 page has a <base>, which would send #fragments home
    skip.addEventListener("click", (event) => { event.preventDefault(); main.focus(); main.scrollIntoView(); });
    document.body.prepend(skip);
  }
  const toggle = document.getElementById("observablehq-sidebar-toggle");
  if (toggle) toggle.tabIndex = -1;
});
</script>`,
  header: "",
  footer: "iopscope: benchmark results you can query. Built from the bundled data/raw/ tree.",
  toc: true,
  pager: false,
  search: false,
  linkify: true,
  typographer: false,
  preserveExtension: false,
  cleanUrls: true
};
