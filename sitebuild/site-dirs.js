// Where the site's sources are and where a build writes, for the configuration and build.js alike.

/** IOPSCOPE_SITE_ROOT lets a test build a copy of src/ (with its own loader cache) elsewhere. */
export function siteRoot(env = process.env) {
  return env.IOPSCOPE_SITE_ROOT || "src";
}

/** IOPSCOPE_DIST lets a second checkout or a test build elsewhere without clobbering dist/. */
export function siteOutput(env = process.env) {
  return env.IOPSCOPE_DIST || "dist";
}
