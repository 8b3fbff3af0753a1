// The site build `iopscope build` and `npm run build` run: the last full build updated in place
// when only the data changed (update.js), else Framework's own build, recorded for the next
// update. `--full` (or IOPSCOPE_SITE_FULL=1) always builds in full.
//
//   node sitebuild/build.js [--full]     (from the project folder, as `observable build`)
import {spawn} from "node:child_process";
import {existsSync, readdirSync, rmSync, unlinkSync} from "node:fs";
import {join} from "node:path";
import {siteOutput, siteRoot} from "./site-dirs.js";
import {dataDigest, describeBuild, forgetManifest, siteInputsDigest, updateInPlace, writeManifest} from "./update.js";
import {dynamicPathsRecord} from "./warehouse-paths.js";

const root = siteRoot();
const output = siteOutput();
const say = (line) => process.stderr.write(`${line}\n`);

async function fullBuild(why) {
  say(`iopscope: full site build (${why})`);
  // A build that fails half way leaves no record, so the next one is full too.
  forgetManifest(root);
  // the data as the loaders find it when they start (a warehouse written during the build then
  // differs from it next time, and the next build runs them again)
  const data = dataDigest(root);
  // Framework clears an output inside the working directory and refuses to write over the files
  // of an earlier build anywhere else ("file conflict"): such an output (one with Framework's
  // _observablehq/ folder) is cleared here, as Framework would.
  if (existsSync(join(output, "_observablehq"))) {
    for (const name of readdirSync(output)) rmSync(join(output, name), {recursive: true, force: true});
  }
  try {
    unlinkSync(dynamicPathsRecord(root));
  } catch {
    // none
  }
  const code = await new Promise((resolve) => {
    const child = spawn(join("node_modules", ".bin", "observable"), ["build"], {stdio: "inherit"});
    child.on("error", (error) => {
      say(`iopscope: cannot start Framework's build: ${error.message}`);
      resolve(1);
    });
    child.on("close", (status, signal) => resolve(status ?? (signal ? 1 : 0)));
  });
  if (code !== 0) return code;
  // (after the build: its configuration may have written src/components/vendor/vega-embed.js)
  const {manifest, reason} = describeBuild(root, output, siteInputsDigest(root, output), data);
  if (manifest) writeManifest(root, manifest);
  else say(`iopscope: the next site build will be full too: ${reason}`);
  return 0;
}

async function main() {
  if (process.argv.includes("--full") || process.env.IOPSCOPE_SITE_FULL === "1") return fullBuild("asked for");
  const result = await updateInPlace(root, output, {log: say});
  if (!result.updated) return fullBuild(result.reason);
  if (result.upToDate) {
    say(`iopscope: site up to date: the warehouse and the site's sources are those of the last build (nothing written, ${result.ms} ms)`);
    return 0;
  }
  say(`iopscope: site updated in place, no page rebuilt: ${result.changedFiles} of the pages' files changed, ` +
      `${result.modulesRewritten} modules renamed with them, ${result.pagesRewritten} pages rewritten; ${result.linked} data files ` +
      `(${result.bytes} bytes) linked from the loaders' cache, ${result.removed} removed; in ${result.ms} ms`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    say(error?.message ?? String(error));
    process.exit(1);
  }
);
