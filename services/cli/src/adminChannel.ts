import { randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Logger } from "@tidings/core";
import type { CliOutput } from "./cliOutput.js";

/** Runs one command line with the serving process's open stores; resolves to its exit code. */
export type CommandRunner = (argv: string[], out: CliOutput) => Promise<number>;

/** Where a serving process says how to reach its admin channel: loopback port and token, readable by its owner only. */
export interface AdminAddress {
  pid: number;
  port: number;
  token: string;
}

export const adminFile = (dataDir: string) => join(dataDir, "admin.json");

export function readAdminAddress(dataDir: string): AdminAddress | undefined {
  try {
    return JSON.parse(readFileSync(adminFile(dataDir), "utf8")) as AdminAddress;
  } catch {
    return undefined;
  }
}

/** The only path served; anything else is 404. */
export const ADMIN_PATH = "/commands";
const MAX_BODY = 64 * 1024;

const isLoopback = (address: string | undefined) => address === "127.0.0.1" || address === "::1" || address === "::ffff:127.0.0.1";

/**
 * The serving process's side of `tidings <command>` in embedded mode, where PGlite lets one process at a
 * time open DATA_DIR (docs/operations.md, "The tidings command"). An HTTP listener on 127.0.0.1 only, on a
 * port of the kernel's choosing, apart from the public api; each request carries a random token written,
 * with the port, to `DATA_DIR/admin.json` (mode 0600), so only who may read the data directory may run
 * commands. A request is a command line; the answer streams its output lines and ends with its exit code,
 * one JSON object per line: `{"out": …}`, `{"err": …}`, `{"exit": n}`.
 */
export async function startAdminChannel(dataDir: string, run: CommandRunner, logger: Logger): Promise<{ close(): Promise<void> }> {
  const token = randomBytes(32).toString("base64url");
  const expected = Buffer.from(`Bearer ${token}`);
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.error({ err: error }, "admin channel request failed");
      response.destroy();
    });
  });
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!isLoopback(request.socket.remoteAddress)) return refuse(response, 403, "loopback only");
    if (request.method !== "POST" || request.url !== ADMIN_PATH) return refuse(response, 404, "not found");
    const given = Buffer.from(request.headers.authorization ?? "");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return refuse(response, 401, "wrong or missing token");
    const argv = parseBody(await readBody(request));
    if (!argv) return refuse(response, 400, 'the body must be {"argv": [string, …]}');
    response.writeHead(200, { "content-type": "application/x-ndjson" });
    // A client gone (Ctrl-C) or a channel closed by a stop leaves the command to finish unheard.
    response.on("error", () => {});
    const send = (message: Record<string, unknown>) => {
      if (!response.destroyed) response.write(`${JSON.stringify(message)}\n`);
    };
    // Process logs are shipped where no erasure reaches (docs/privacy.md): `tidings erase <address>` must not leave the address there.
    logger.info({ argv: argv.map((arg) => (arg.includes("@") ? "[address]" : arg)) }, "running a CLI command for a client");
    const code = await run(argv, { out: (line) => send({ out: line }), err: (line) => send({ err: line }) });
    send({ exit: code });
    if (!response.destroyed) response.end();
  }
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address: AdminAddress = { pid: process.pid, port: (server.address() as AddressInfo).port, token };
  const file = adminFile(dataDir);
  rmSync(file, { force: true });
  writeFileSync(file, JSON.stringify(address), { mode: 0o600, flag: "wx" });
  return {
    async close() {
      if (readAdminAddress(dataDir)?.token === token) rmSync(file, { force: true });
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function refuse(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ error: message }));
}

async function readBody(request: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of request) {
    body += String(chunk);
    if (body.length > MAX_BODY) break;
  }
  return body;
}

function parseBody(body: string): string[] | undefined {
  try {
    const { argv } = JSON.parse(body) as { argv?: unknown };
    return Array.isArray(argv) && argv.every((a) => typeof a === "string") ? argv : undefined;
  } catch {
    return undefined;
  }
}
