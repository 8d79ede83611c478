#!/usr/bin/env node
// `npm run bench`: builds, then runs every benchmark in bench/ one after another (they would compete for
// the 2 cores otherwise). Each prints its own JSON lines; this adds nothing to stdout but theirs.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const only = process.argv.slice(2);
const build = spawnSync("npx", ["tsc", "-b"], { stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);

// The HTTP benchmarks drive load with Debian's wrk (a C process, so it takes no CPU from the server's
// event loop the way a Node load generator would).
const hasWrk = spawnSync("wrk", ["--version"]).error === undefined;
// A signal to this runner goes on to the benchmark running, which undoes what it made (bench/support/
// teardown.mjs) and ends; then this one ends too, with no benchmark after it.
let running;
let stoppedBy;
for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => {
    stoppedBy = signal;
    running?.kill(signal);
  });
const finished = (child) => new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
let failed = 0;
for (const file of readdirSync("bench")
  .filter((f) => f.endsWith(".mjs") && !f.startsWith("."))
  .sort()) {
  if (only.length && !only.some((name) => file.startsWith(name))) continue;
  if (!hasWrk && readFileSync(join("bench", file), "utf8").includes('"wrk"')) {
    process.stderr.write(`== ${file} skipped: it needs wrk (apt-get install wrk)\n`);
    failed++;
    continue;
  }
  if (stoppedBy) break;
  process.stderr.write(`== ${file}\n`);
  running = spawn(process.execPath, [join("bench", file)], { stdio: "inherit" });
  if ((await finished(running)) !== 0) failed++;
  running = undefined;
}
if (stoppedBy) process.exit(stoppedBy === "SIGINT" ? 130 : 143);
process.exit(failed ? 1 : 0);
