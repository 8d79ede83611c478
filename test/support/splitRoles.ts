import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { connect } from "nats";
import { createLogger, loadConfig, randomBase62 } from "@tidings/core";
import { createTestDatabase, type TestDatabase } from "@tidings/postgres";
import { serve, type Serving } from "@tidings/cli";
import { raiseBootstrapTeamRateLimit } from "./rateLimit.js";
import { freePort } from "./testServer.js";

const cli = join(import.meta.dirname, "../../services/cli/dist/main.js");

/**
 * A server-mode deployment split by role, for the crash tests: the projector and api run in the test
 * process, the sagas in a child process (the built CLI) that the test may SIGKILL and start again.
 */
export interface SplitRoles {
  /** The api's base URL. */
  url: string;
  token: string;
  database: TestDatabase;
  /** The settings every role runs with. */
  env: Record<string, string>;
  /** Starts `tidings serve --role sagas`; the last 4 KB of its stderr stay readable through `sagasErrors`. */
  startSagas(): ChildProcess;
  sagasErrors(): string;
  /** SIGKILL, and wait for the process to be gone. */
  kill(child: ChildProcess): Promise<void>;
  /** SIGTERM, as a deploy stops a process, and wait for it to exit; rejects (and kills it) after `withinMs`. */
  terminate(child: ChildProcess, withinMs: number): Promise<void>;
  /** Kills a sagas process still running, stops the roles, and drops the database and NATS streams. */
  stop(): Promise<void>;
}

export async function startSplitRoles(settings: Record<string, string>): Promise<SplitRoles> {
  const database = await createTestDatabase({ mode: "server" });
  await database.database.close();
  const token = `re_${randomBase62(40)}`;
  const env = {
    PORT: String(await freePort()),
    LOG_LEVEL: "warn",
    TIDINGS_BOOTSTRAP_TOKEN: token,
    EVENTSTORE_URL: database.url,
    DATABASE_URL: database.url,
    NATS_URL: process.env.NATS_URL ?? "nats://127.0.0.1:4222",
    NATS_PREFIX: `s${randomBase62(10)}`,
    TIDINGS_SECRET: randomBase62(40),
    ...settings,
  };
  const config = loadConfig(env);
  const logger = createLogger("warn");
  const servings: Serving[] = [await serve(config, logger, "projector")];
  const api = await serve(config, logger, "api");
  servings.push(api);
  await raiseBootstrapTeamRateLimit(api.runtime);

  let errors = "";
  const children: ChildProcess[] = [];
  const kill = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  };
  const terminate = async (child: ChildProcess, withinMs: number) => {
    const exited = new Promise<boolean>((resolve) => {
      child.once("exit", () => resolve(true));
      setTimeout(() => resolve(false), withinMs);
    });
    child.kill("SIGTERM");
    if (await exited) return;
    await kill(child);
    throw new Error(`the sagas process did not exit within ${withinMs} ms of SIGTERM`);
  };
  return {
    url: api.url!,
    token,
    database,
    env,
    startSagas() {
      const child = spawn(process.execPath, [cli, "serve", "--role", "sagas"], { env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "ignore", "pipe"] });
      child.stderr!.on("data", (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-4_000)));
      children.push(child);
      return child;
    },
    sagasErrors: () => errors,
    kill,
    terminate,
    async stop() {
      for (const child of children) await kill(child);
      for (const s of servings.reverse()) await s.stop();
      const nc = await connect({ servers: env.NATS_URL });
      const jsm = await nc.jetstreamManager();
      for await (const stream of jsm.streams.list()) if (stream.config.name.startsWith(`${env.NATS_PREFIX}_`)) await jsm.streams.delete(stream.config.name);
      await nc.close();
      await database.dispose();
    },
  };
}
