// What the end-to-end benchmarks share: Tidings started as `tidings serve` child processes with throw-away
// stores (a PGlite directory, or a scratch PostgreSQL database and its own NATS streams), and wrk driving it.
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { setTimeout as sleep } from "node:timers/promises";
import { createLogger, loadConfig, randomBase62 } from "@tidings/core";
import { BOOTSTRAP_TEAM_NAME } from "@tidings/api";
import { serve } from "@tidings/cli";
import { connect } from "nats";
import { setTeamRateLimit } from "../../services/cli/dist/commands/teams.js";
import { withScratchDatabase } from "./scratchDatabase.mjs";
import { childToStop, undoOnExit } from "./teardown.mjs";

const run = promisify(execFile);
const cli = fileURLToPath(new URL("../../services/cli/dist/main.js", import.meta.url));

export const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

/** wrk's report: requests, non-2xx answers, and the p50/p99 latency in milliseconds. */
export async function wrk(url, script, duration, connections) {
  // The first few answers that are not 2xx, status and body, so a report says what they were.
  const sampled = `${script}.sampled.lua`;
  writeFileSync(
    sampled,
    `${readFileSync(script, "utf8")}\nlocal shown = 0\nresponse = function(status, headers, body)\n  if status >= 300 and shown < 3 then\n    shown = shown + 1\n    io.write("non-2xx " .. status .. " " .. string.sub(body, 1, 300):gsub("\\n", " ") .. "\\n")\n  end\nend\n`,
  );
  const args = ["-t1", `-c${connections}`, `-d${duration}s`, "--latency", "-s", sampled, url];
  const { stdout } = await run("wrk", args, { maxBuffer: 1 << 20 });
  const ms = (label) => {
    const m = new RegExp(`^\\s+${label}%\\s+([\\d.]+)(us|ms|s)\\s*$`, "m").exec(stdout);
    if (!m) throw new Error(`could not read wrk's report:\n${stdout}`);
    return Number((Number(m[1]) * { us: 0.001, ms: 1, s: 1000 }[m[2]]).toFixed(2));
  };
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
  const non2xxSamples = [...stdout.matchAll(/^non-2xx (.*)$/gm)].map((m) => m[1]);
  return { requests, accepted: requests - non2xx, non2xx, non2xxSamples, p50Ms: ms(50), p99Ms: ms(99) };
}

/**
 * `tidings serve --role <role>` as a child process; `stop()` drains it with SIGTERM, as an operator would.
 * A run that ends without stopping it (interrupted, failed) stops it on its way out. BENCH_NODE_FLAGS adds
 * node flags to every role, e.g. `--heapsnapshot-signal=SIGUSR2` to take a heap snapshot of one mid-run.
 */
export function startRole(role, env, { cpuProfileDir } = {}) {
  const profile = cpuProfileDir
    ? ["--cpu-prof", `--cpu-prof-dir=${cpuProfileDir}`, `--cpu-prof-name=${role}-${Date.now()}.cpuprofile`]
    : [];
  const flags = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean);
  const args = [...flags, ...profile, cli, "serve", "--role", role];
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "inherit"] });
  const { exited, stop } = childToStop(`the ${role} process (pid ${child.pid})`, child);
  return {
    role,
    pid: child.pid,
    exited,
    /** The process's peak resident set so far, in MB. */
    peakRssMb: () => peakRssMb(child.pid),
    stop,
  };
}

/** A process's peak resident set so far (VmHWM), in MB: issue #25 sets targets for it per role. */
export const peakRssMb = (pid = "self") =>
  Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024);

export async function waitUntilReady(baseUrl, deadlineMs = 60_000) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (
      await fetch(`${baseUrl}/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    if (Date.now() > deadline) throw new Error(`${baseUrl} did not become ready`);
    await sleep(100);
  }
}

/**
 * A NATS_PREFIX of its own for one run, whose JetStream streams are deleted however the run ends; call the returned
 * `drop` in the run's `finally`.
 */
export function scratchNatsPrefix(natsUrl) {
  const prefix = `bench${randomBase62(8)}`;
  const drop = undoOnExit(`NATS streams ${prefix}_*`, async () => {
    const nc = await connect({ servers: natsUrl });
    try {
      const jsm = await nc.jetstreamManager();
      for await (const stream of jsm.streams.list())
        if (stream.config.name.startsWith(`${prefix}_`)) await jsm.streams.delete(stream.config.name);
    } finally {
      await nc.close();
    }
  });
  return { prefix, drop };
}

/** Runs `body` with the store settings of `mode`, and drops the stores afterwards whatever happens. */
export async function withModeSettings(mode, label, natsUrl, body) {
  if (mode === "embedded") {
    const dir = mkdtempSync(join(tmpdir(), `tidings-bench-${label}-`));
    const remove = undoOnExit(`directory ${dir}`, () => rmSync(dir, { recursive: true, force: true }));
    try {
      return await body({ DATA_DIR: dir });
    } finally {
      await remove();
    }
  }
  const { prefix, drop } = scratchNatsPrefix(natsUrl);
  try {
    return await withScratchDatabase(label, (url) =>
      body({ EVENTSTORE_URL: url, TIDINGS_SECRET: "b".repeat(40), NATS_URL: natsUrl, NATS_PREFIX: prefix }),
    );
  } finally {
    await drop();
  }
}

/** Creates the first team and key, and lifts the team's rate limit out of the way: one start in this process. */
const RAISED_RATE_LIMIT = 10_000_000;

/**
 * Waits until the api applies the raised rate limit (`prepareBootstrapTeam`): it learns it from a read
 * model the projector may still be catching up with, and until then a load gets 429s at 10 requests/s.
 */
export async function waitForRaisedRateLimit(baseUrl, token, deadlineMs = 30_000) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const res = await fetch(`${baseUrl}/api-keys?limit=1`, { headers: { Authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (res.headers.get("ratelimit-limit") === String(RAISED_RATE_LIMIT)) return;
    if (Date.now() > deadline) throw new Error(`the api still applies ${res.headers.get("ratelimit-limit")} requests/s`);
    await sleep(200);
  }
}

export async function prepareBootstrapTeam(env) {
  const config = loadConfig(env);
  const serving = await serve(config, createLogger(config.LOG_LEVEL), "all");
  try {
    await setTeamRateLimit(serving.runtime.store, BOOTSTRAP_TEAM_NAME, RAISED_RATE_LIMIT);
  } finally {
    await serving.stop();
  }
}
