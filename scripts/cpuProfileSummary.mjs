#!/usr/bin/env node
// Where a process's CPU went, from a V8 CPU profile (`node --cpu-prof`, or any bench's BENCH_CPU_PROF):
// self time by package (npm package, our workspace package, Node's internals, native code and GC) and by
// function, as shares of the busy time. Issue #25 asks for such a summary of the sagas process during a
// broadcast before and after a change; `node scripts/cpuProfileSummary.mjs <file.cpuprofile> [top]`.
import { readFileSync } from "node:fs";

const [file, topArgument] = process.argv.slice(2);
if (!file) {
  console.error("usage: node scripts/cpuProfileSummary.mjs <file.cpuprofile> [top]");
  process.exit(2);
}
const top = Number(topArgument ?? 20);
const profile = JSON.parse(readFileSync(file, "utf8"));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));

const selfMicros = new Map();
profile.samples.forEach((id, i) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

/** The package a frame's script belongs to: an npm package, a workspace package, or a part of Node. */
function packageOf(url) {
  if (!url) return "(native code)";
  const npm = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (npm) return npm[1];
  const ours = /\/(packages|services|projections)\/([^/]+)?/.exec(url);
  if (ours) return ours[1] === "projections" ? "projections" : `${ours[1]}/${ours[2]}`;
  if (url.startsWith("node:")) return `node:${url.slice(5).split("/")[0]}`;
  return url;
}

const byPackage = new Map();
const byFunction = new Map();
let busy = 0;
let idle = 0;
for (const [id, micros] of selfMicros) {
  const { functionName, url, lineNumber } = nodes.get(id).callFrame;
  if (functionName === "(idle)") {
    idle += micros;
    continue;
  }
  busy += micros;
  const where = ["(garbage collector)", "(program)"].includes(functionName) ? functionName : packageOf(url);
  byPackage.set(where, (byPackage.get(where) ?? 0) + micros);
  const name = `${functionName || "(anonymous)"} ${url ? `${url.split("/").slice(-2).join("/")}:${lineNumber + 1}` : "(native)"}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
}

const share = (micros) => `${((100 * micros) / busy).toFixed(1).padStart(5)}%`;
console.log(`${file}: busy ${(busy / 1e6).toFixed(1)} s, idle ${(idle / 1e6).toFixed(1)} s`);
console.log("\nby package:");
for (const [name, micros] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${share(micros)}  ${name}`);
console.log("\nby function (self time):");
for (const [name, micros] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${share(micros)}  ${name}`);
