// CPU time read from /proc, summed over groups of processes: on a machine whose speed varies from day to
// day and whose other work steals wall time, CPU milliseconds per unit are the figure that carries over to
// a capacity model (docs/scaling.md). Linux only.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

const ticksPerMs = Number(execFileSync("getconf", ["CLK_TCK"]).toString()) / 1000;

/** CPU ticks (user + system) of every process whose command line matches, by pid. */
function ticksOf(match) {
  const ticks = new Map();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (!match(readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " "), Number(pid))) continue;
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return ticks;
}

/**
 * Starts counting the CPU of each named group of processes (`match(commandLine, pid)`); `read()` gives the
 * milliseconds each group spent since, processes that started meanwhile counted whole.
 */
export function cpuCounter(groups) {
  const before = Object.fromEntries(Object.entries(groups).map(([name, match]) => [name, ticksOf(match)]));
  return {
    read() {
      const cpuMs = {};
      for (const [name, match] of Object.entries(groups)) {
        let spent = 0;
        for (const [pid, t] of ticksOf(match)) spent += t - (before[name].get(pid) ?? 0);
        cpuMs[name] = spent / ticksPerMs;
      }
      return cpuMs;
    },
  };
}

/** Runs `work` and returns its wall time and the CPU milliseconds each named process group spent meanwhile. */
export async function measured(groups, work) {
  const counter = cpuCounter(groups);
  const started = performance.now();
  await work();
  return { wallMs: performance.now() - started, cpuMs: counter.read() };
}

/**
 * PostgreSQL's processes, or only the backends connected to `database`: a backend's command line is
 * `postgres: [<cluster>: ]<user> <database> <client> <state>`.
 */
export const postgresBackend = (database) => (cmd) =>
  cmd.startsWith("postgres:") && (database === undefined || cmd.split(" ").includes(database));
export const natsServer = (cmd) => /(^|\/)nats-server( |$)/.test(cmd);
