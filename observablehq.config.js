// Observable Framework configuration for the iopscope site.
// Offline by design: no Google Fonts (globalStylesheets: []), no CDN imports (every library is
// installed from npm and imported by bare specifier), no telemetry (set in the environment).
export default {
  root: "src",
  // IOPSCOPE_DIST lets a second checkout or a test build elsewhere without clobbering dist/.
  output: process.env.IOPSCOPE_DIST || "dist",
  title: "iopscope",
  pages: [
    {name: "fio", path: "/fio"}
  ],
  // The default stylesheet list links fonts.googleapis.com: keep it empty and import the
  // Framework theme from our own stylesheet instead.
  globalStylesheets: [],
  style: "style.css",
  head: '<link rel="icon" href="data:,">',
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
