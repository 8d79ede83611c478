import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./testServer.js";

const run = promisify(execFile);
const binaries = "/usr/lib/postgresql/15/bin";

/**
 * A PostgreSQL server of the test's own, on a port of its own, for tests that stop and start their
 * database: the machine's shared server must stay up for everyone else. PostgreSQL refuses to run as
 * root, so under root every command runs as the `postgres` user through `runuser`.
 */
export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  /** Stops the server: `immediate` as a crash would (recovery on the next start), `fast` as an operator would. */
  stop(mode: "fast" | "immediate"): Promise<void>;
  /** Starts it again on the same port and data directory; resolves once it takes connections. */
  start(): Promise<void>;
  /** Stops it and deletes its data. */
  dispose(): Promise<void>;
}

/** Why a private server cannot be run here, or undefined when it can. */
export function privatePostgresUnavailable(): string | undefined {
  for (const binary of ["initdb", "pg_ctl", "postgres"])
    if (!existsSync(join(binaries, binary))) return `${join(binaries, binary)} is missing`;
  if (process.getuid?.() === 0 && !existsSync("/usr/sbin/runuser") && !existsSync("/sbin/runuser"))
    return "runuser is missing, and PostgreSQL cannot be started as root without it";
  return undefined;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const asRoot = process.getuid?.() === 0;
  const command = (binary: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(binaries, binary), ...args]) : run(join(binaries, binary), args);
  const dir = mkdtempSync(join(tmpdir(), "tidings-private-pg-"));
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: group } = await run("id", ["-g", "postgres"]);
    chownSync(dir, Number(stdout.trim()), Number(group.trim()));
  }
  const data = join(dir, "data");
  const port = await freePort();
  await command("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync", "--no-instructions"]);
  // fsync and full-page writes guard against the machine crashing, which these tests never do; a server
  // stopped as a crash would be (immediate) still finds every commit in the WAL. synchronous_commit stays
  // on: without it, a commit already answered could be lost with the server, which production never allows.
  writeFileSync(
    join(data, "postgresql.auto.conf"),
    [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      "fsync = off",
      "full_page_writes = off",
      "shared_buffers = 32MB",
      "max_connections = 200",
    ].join("\n") + "\n",
  );
  if (asRoot) await run("chown", ["postgres:postgres", join(data, "postgresql.auto.conf")]);
  const start = async () => void (await command("pg_ctl", ["-D", data, "-l", join(dir, "server.log"), "-w", "-t", "60", "start"]));
  const stop = async (mode: "fast" | "immediate") => void (await command("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "60", "stop"]));
  await start();
  let disposed = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    start,
    async dispose() {
      if (disposed) return;
      disposed = true;
      await stop("immediate").catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
