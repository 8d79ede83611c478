import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "nats";
import { freePort } from "./testServer.js";

const binary = "/usr/sbin/nats-server";

/**
 * A NATS server with JetStream of the test's own, for tests that kill and restart it: the machine's
 * shared server must stay up for everyone else. A restart keeps the store directory, so streams and
 * consumers survive it as they do in production.
 */
export interface PrivateNats {
  /** `nats://127.0.0.1:<port>` */
  url: string;
  /** SIGKILL, as a crash: resolves once the process is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port and store; resolves once JetStream answers. */
  start(): Promise<void>;
  /** Kills it and deletes its store. */
  dispose(): Promise<void>;
}

/** Why a private server cannot be run here, or undefined when it can. */
export function privateNatsUnavailable(): string | undefined {
  return existsSync(binary) ? undefined : `${binary} is missing`;
}

export async function startPrivateNats(): Promise<PrivateNats> {
  const dir = mkdtempSync(join(tmpdir(), "tidings-private-nats-"));
  const port = await freePort();
  const url = `nats://127.0.0.1:${port}`;
  let server: ChildProcess | undefined;
  let output = "";

  const kill = async () => {
    const child = server;
    server = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  };
  const start = async () => {
    const child = spawn(binary, ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", dir], { stdio: ["ignore", "pipe", "pipe"] });
    server = child;
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000));
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}: ${output}`);
      try {
        const nc = await connect({ servers: url, reconnect: false, timeout: 1_000 });
        try {
          await (await nc.jetstreamManager()).getAccountInfo();
          return;
        } finally {
          await nc.close();
        }
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(`nats-server on ${url} did not answer within 30 s: ${String(error)}\n${output}`, { cause: error });
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  await start();
  return {
    url,
    kill,
    start,
    async dispose() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
