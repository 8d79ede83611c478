import { Resend } from "resend";
import { afterAll, beforeAll } from "vitest";
import { startTestServer, type TestServer } from "./testServer.js";

/** A test file's server, and the SDK on its full-access token. */
export interface FileServer {
  readonly server: TestServer;
  readonly resend: Resend;
}

/**
 * Starts a test server before the file's tests and stops it after them. Call it at the top of the file;
 * read its fields in tests and hooks, once the server is up.
 */
export function serverForFile(env: Record<string, string> = {}): FileServer {
  let started: { server: TestServer; resend: Resend } | undefined;
  beforeAll(async () => {
    const server = await startTestServer(env);
    started = { server, resend: new Resend(server.token, { baseUrl: server.url }) };
  });
  afterAll(() => started?.server.stop());
  const get = () => {
    if (!started) throw new Error("the file's server is started in beforeAll: read it in a test or a hook");
    return started;
  };
  return {
    get server() {
      return get().server;
    },
    get resend() {
      return get().resend;
    },
  };
}
