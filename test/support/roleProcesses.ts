import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, type WriteStream } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const cli = join(import.meta.dirname, "../../services/cli/dist/main.js");

export type ProcessRole = "api" | "projector" | "sagas";

/**
 * A server-mode deployment with every role in a child process of its own (the built CLI), so a test can
 * SIGKILL any of them and start it again. Each process's output goes to a log file, whose end a failing
 * test can print.
 */
export interface RoleProcesses {
  /**
   * Starts `tidings serve --role <role>`, and resolves once it says it is running (its stores opened, its
   * work started); a role already running is left as it is. Rejects if the process exits first.
   */
  start(role: ProcessRole): Promise<void>;
  /** SIGKILL, and wait for the process to be gone. */
  kill(role: ProcessRole): Promise<void>;
  /** Exits the test did not cause (a crash), as `<role> exited (<code or signal>)`. */
  unexpectedExits(): string[];
  /** The last `bytes` of the role's output, over all its processes so far. */
  output(role: ProcessRole, bytes?: number): string;
  /** Kills whatever still runs and deletes the logs. */
  stop(): Promise<void>;
}

export function startRoleProcesses(env: Record<string, string>): RoleProcesses {
  const logs = mkdtempSync(join(tmpdir(), "tidings-roles-"));
  const running = new Map<ProcessRole, ChildProcess>();
  const files = new Map<ProcessRole, WriteStream>();
  const killed = new WeakSet<ChildProcess>();
  const unexpected: string[] = [];
  const logFile = (role: ProcessRole) => join(logs, `${role}.log`);
  const output = (role: ProcessRole, bytes = 4_000) => {
    try {
      return readFileSync(logFile(role), "utf8").slice(-bytes);
    } catch {
      return "";
    }
  };
  const kill = async (role: ProcessRole) => {
    const child = running.get(role);
    running.delete(role);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    killed.add(child);
    child.kill("SIGKILL");
    await exited;
  };
  return {
    async start(role) {
      if (running.has(role)) return;
      const file = files.get(role) ?? createWriteStream(logFile(role), { flags: "a" });
      files.set(role, file);
      const child = spawn(process.execPath, [cli, "serve", "--role", role], {
        env: { PATH: process.env.PATH, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout!.pipe(file, { end: false });
      child.stderr!.pipe(file, { end: false });
      running.set(role, child);
      let said = "";
      await new Promise<void>((resolve, reject) => {
        const onOutput = (chunk: Buffer) => {
          said = (said + chunk.toString()).slice(-1_000);
          if (!/^Tidings is (serving|running)/m.test(said)) return;
          child.stdout!.off("data", onOutput);
          child.off("exit", onExit);
          resolve();
        };
        const onExit = () => {
          if (running.get(role) === child) running.delete(role);
          reject(new Error(`the ${role} process exited before it was running: ${said}`));
        };
        child.stdout!.on("data", onOutput);
        child.once("exit", onExit);
      });
      child.once("exit", (code, signal) => {
        file.write(`-- ${role} process exited (${signal ?? code})\n`);
        if (!killed.has(child)) unexpected.push(`${role} exited (${signal ?? code})`);
        if (running.get(role) === child) running.delete(role);
      });
    },
    kill,
    unexpectedExits: () => [...unexpected],
    output,
    async stop() {
      for (const role of [...running.keys()]) await kill(role);
      await Promise.all([...files.values()].map((file) => new Promise((resolve) => file.end(resolve))));
      rmSync(logs, { recursive: true, force: true });
    },
  };
}
