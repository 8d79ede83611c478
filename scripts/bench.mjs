#!/usr/bin/env node
// `npm run bench`: builds, then runs every benchmark in bench/ one after another (they would compete for
// the 2 cores otherwise). Each prints its own JSON lines; this adds nothing to stdout but theirs.
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const only = process.argv.slice(2);
const build = spawnSync("npx", ["tsc", "-b"], { stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);

// The HTTP benchmarks drive load with Debian's wrk (a C process, so it takes no CPU from the server's
// event loop the way a Node load generator would).
const hasWrk = spawnSync("wrk", ["--version"]).error === undefined;
let failed = 0;
for (const file of readdirSync("bench").filter((f) => f.endsWith(".mjs") && !f.startsWith(".")).sort()) {
  if (only.length && !only.some((name) => file.startsWith(name))) continue;
  if (!hasWrk && readFileSync(join("bench", file), "utf8").includes('"wrk"')) {
    process.stderr.write(`== ${file} skipped: it needs wrk (apt-get install wrk)\n`);
    failed++;
    continue;
  }
  process.stderr.write(`== ${file}\n`);
  const run = spawnSync(process.execPath, [join("bench", file)], { stdio: "inherit" });
  if (run.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
