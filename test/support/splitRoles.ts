import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createLogger, loadConfig, randomBase62 } from "@tidings/core";
import { createTestDatabase, type TestDatabase } from "@tidings/postgres";
import { serve, type Serving } from "@tidings/cli";
import { raiseBootstrapTeamRateLimit } from "./rateLimit.js";
import { deleteNatsStreams, freePort, serverModeStores } from "./testServer.js";

const cli = join(import.meta.dirname, "../../services/cli/dist/main.js");

export type ChildRole = "api" | "projector" | "sagas";

/**
 * A server-mode deployment split by role, for the crash tests: the api runs in the test process, the
 * projector there too unless asked for as a child, and the sagas in a child process (the built CLI)
 * that the test may SIGKILL and start again.
 */
export interface SplitRoles {
  /** The api's base URL. */
  url: string;
  token: string;
  database: TestDatabase;
  /** The settings every role runs with. */
  env: Record<string, string>;
  /** The projector's process, when it was asked for as a child. */
  projector?: ChildProcess;
  /** Starts `tidings serve --role sagas`. */
  startSagas(): ChildProcess;
  /**
   * Starts `tidings serve --role <role>` with `env` over the shared settings; the last 4 KB of its log and stderr stay readable
   * through `errors(role)`.
   */
  startRole(role: ChildRole, env?: Record<string, string>): ChildProcess;
  errors(role: ChildRole): string;
  /** SIGKILL, and wait for the process to be gone. */
  kill(child: ChildProcess): Promise<void>;
  /**
   * SIGTERM, as a deploy stops a process, and wait for it to exit; resolves with the milliseconds it took.
   * Past `withinMs` it kills the process and rejects, naming how long it had run on.
   */
  terminate(child: ChildProcess, withinMs: number): Promise<number>;
  /** Kills the child processes still running, stops the roles, and drops the database and NATS streams. */
  stop(): Promise<void>;
}

export interface SplitRolesOptions {
  /** Runs the projector as a child process (started before the api, which waits on its projections). */
  projectorChild?: boolean;
}

export async function startSplitRoles(settings: Record<string, string>, options: SplitRolesOptions = {}): Promise<SplitRoles> {
  const database = await createTestDatabase({ mode: "server" });
  await database.database.close();
  const token = `re_${randomBase62(40)}`;
  const env: Record<string, string> = {
    PORT: String(await freePort()),
    LOG_LEVEL: "warn",
    TIDINGS_BOOTSTRAP_TOKEN: token,
    ...serverModeStores(database, "s"),
    ...settings,
  };
  const errors = new Map<ChildRole, string>();
  const children: ChildProcess[] = [];
  const startRole = (role: ChildRole, extra: Record<string, string> = {}) => {
    const child = spawn(process.execPath, [cli, "serve", "--role", role], {
      env: { PATH: process.env.PATH, ...env, ...extra },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // Its log (warnings up, on stdout) and its stderr: what a test that fails on the role prints.
    const keep = (chunk: Buffer) => errors.set(role, ((errors.get(role) ?? "") + chunk.toString()).slice(-4_000));
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    children.push(child);
    return child;
  };
  const kill = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  };
  const terminate = async (child: ChildProcess, withinMs: number) => {
    const sent = performance.now();
    const exited = new Promise<boolean>((resolve) => {
      child.once("exit", () => resolve(true));
      setTimeout(() => resolve(false), withinMs);
    });
    child.kill("SIGTERM");
    if (await exited) return Math.round(performance.now() - sent);
    await kill(child);
    throw new Error(`${child.spawnargs.slice(-2).join(" ")} did not exit within ${withinMs} ms of SIGTERM`);
  };

  const config = loadConfig(env);
  const logger = createLogger("warn");
  const servings: Serving[] = [];
  const projector = options.projectorChild ? startRole("projector") : undefined;
  if (!projector) servings.push(await serve(config, logger, "projector"));
  const api = await serve(config, logger, "api");
  servings.push(api);
  await raiseBootstrapTeamRateLimit(api.runtime);

  return {
    url: api.url!,
    token,
    database,
    env,
    ...(projector ? { projector } : {}),
    startSagas: () => startRole("sagas"),
    startRole,
    errors: (role) => errors.get(role) ?? "",
    kill,
    terminate,
    async stop() {
      for (const child of children) await kill(child);
      for (const s of servings.reverse()) await s.stop();
      await deleteNatsStreams(env.NATS_URL!, env.NATS_PREFIX!);
      await database.dispose();
    },
  };
}
