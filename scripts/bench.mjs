#!/usr/bin/env node
// `npm run bench`: builds, then runs every benchmark in bench/ one after another (they would compete for
// the 2 cores otherwise). Each prints its own JSON lines; this adds nothing to stdout but theirs.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const only = process.argv.slice(2);
const build = spawnSync("npx", ["tsc", "-b"], { stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);

let failed = 0;
for (const file of readdirSync("bench").filter((f) => f.endsWith(".mjs")).sort()) {
  if (only.length && !only.some((name) => file.startsWith(name))) continue;
  process.stderr.write(`== ${file}\n`);
  const run = spawnSync(process.execPath, [join("bench", file)], { stdio: "inherit" });
  if (run.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
