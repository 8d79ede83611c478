import { request } from "node:http";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { DataDirLockedError } from "@tidings/core";
import { ADMIN_PATH, adminFile, readAdminAddress, type AdminAddress } from "./adminChannel.js";
import type { CliOutput } from "./cliOutput.js";

/**
 * Runs a command line in the process that serves DATA_DIR, through its admin channel (adminChannel.ts),
 * writing its output here as it comes and resolving to its exit code. A process that holds the directory
 * but has not opened its channel yet (it is starting) is waited for up to `waitMs`.
 */
export async function forwardToServing(
  dataDir: string,
  argv: string[],
  out: CliOutput,
  locked: DataDirLockedError,
  waitMs = 30_000,
): Promise<number> {
  const path = resolve(dataDir);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const address = readAdminAddress(path);
    if (address) {
      const code = await send(address, argv, out).catch((error: NodeJS.ErrnoException) => {
        // A channel file left by a process that is gone: the next one writes its own.
        if (error.code === "ECONNREFUSED") return undefined;
        throw error;
      });
      if (code !== undefined) return code;
    }
    if (Date.now() > deadline)
      throw new DataDirLockedError(`${locked.message} (it takes no commands: ${adminFile(path)} names no channel that answers)`);
    await sleep(250);
  }
}

function send(address: AdminAddress, argv: string[], out: CliOutput): Promise<number> {
  return new Promise<number>((resolvePromise, reject) => {
    const body = JSON.stringify({ argv });
    const req = request(
      {
        host: "127.0.0.1",
        port: address.port,
        path: ADMIN_PATH,
        method: "POST",
        headers: {
          authorization: `Bearer ${address.token}`,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        },
      },
      (response) => {
        if (response.statusCode !== 200) {
          let text = "";
          response.on("data", (chunk: Buffer) => (text += chunk.toString()));
          response.on("end", () => reject(new Error(`the serving process refused the command (${response.statusCode}): ${text}`)));
          return;
        }
        let exit: number | undefined;
        const lines = createInterface({ input: response, crlfDelay: Infinity });
        lines.on("line", (line) => {
          const message = JSON.parse(line) as { out?: string; err?: string; exit?: number };
          if (message.out !== undefined) out.out(message.out);
          if (message.err !== undefined) out.err(message.err);
          if (message.exit !== undefined) exit = message.exit;
        });
        lines.on("close", () =>
          exit === undefined ? reject(new Error("the serving process stopped before the command finished")) : resolvePromise(exit),
        );
        response.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
