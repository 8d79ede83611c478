// Memory at idle (issue #25): each `tidings serve` process as deployed, started on fresh stores, left idle, then
// its resident set read from /proc: VmRSS now, VmHWM (the peak since it started), and how much of the resident
// set is PGlite's WebAssembly memory (each instance's linear memory is one reservation of several GB, so
// /proc/<pid>/smaps names it by size). Embedded mode starts twice on one DATA_DIR: the first start runs initdb,
// the second resumes, as `npm start` does after a restart. Server mode runs one process per role.
// Runs the built packages: `npx tsc -b && node bench/footprint.mjs`. One JSON line per start.
// BENCH_MODES=embedded,server; BENCH_IDLE_SECONDS (default 30) between ready and the reading.
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort, startRole, waitUntilReady, withModeSettings } from "./support/servedTidings.mjs";

const modes = (process.env.BENCH_MODES ?? "embedded,server").split(",");
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 30);
const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";

const mb = (kb) => Math.round(kb / 1024);

/** VmRSS and VmHWM of a process, and the resident part of its WebAssembly memories, in MB. */
function footprint(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
  // V8 reserves a WebAssembly memory whole with its guard region (8 GB and more on 64-bit) and makes only the
  // memory's current size accessible: a read-write mapping followed at once by an inaccessible one of several
  // GB. Nothing else in a Node process reserves that much.
  const mappings = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) (\S{4})/.exec(line);
    if (range) mappings.push({ start: BigInt(`0x${range[1]}`), end: BigInt(`0x${range[2]}`), perms: range[3], rssKb: 0 });
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) mappings.at(-1).rssKb = Number(rss[1]);
  }
  let wasmKb = 0;
  let wasmMemories = 0;
  for (let i = 1; i < mappings.length; i++) {
    const [memory, guard] = [mappings[i - 1], mappings[i]];
    if (guard.perms === "---p" && guard.end - guard.start >= 4n << 30n && memory.end === guard.start && memory.perms === "rw-p") {
      wasmKb += memory.rssKb;
      wasmMemories++;
    }
  }
  return { rss_mb: mb(field("VmRSS")), hwm_mb: mb(field("VmHWM")), wasm_rss_mb: mb(wasmKb), wasm_memories: wasmMemories };
}

async function idleStart(roles, env, label) {
  const port = await freePort();
  const started = roles.map((role) => startRole(role, { LOG_LEVEL: "warn", ...env, PORT: String(port) }));
  try {
    await waitUntilReady(`http://127.0.0.1:${port}`, 120_000);
    await sleep(idleSeconds * 1000);
    const readings = Object.fromEntries(started.map((r) => [r.role, footprint(r.pid)]));
    console.log(JSON.stringify({ bench: "footprint", start: label, idle_seconds: idleSeconds, ...readings }));
  } finally {
    for (const r of started) await r.stop();
  }
}

for (const mode of modes) {
  await withModeSettings(mode, "footprint", natsUrl, async (env) => {
    if (mode === "embedded") {
      await idleStart(["all"], env, "embedded, fresh DATA_DIR");
      await idleStart(["all"], env, "embedded, restarted");
    } else {
      await idleStart(["projector", "api", "sagas"], env, "server");
    }
  });
}
