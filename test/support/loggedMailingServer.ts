import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Resend } from "resend";
import { createLogger, loadConfig, randomBase62 } from "@tidings/core";
import { createTestDatabase, testMode } from "@tidings/postgres";
import { runCommand, serve } from "@tidings/cli";
import { startSmtpSink, type SmtpSink } from "@tidings/testkit";
import { raiseBootstrapTeamRateLimit } from "./rateLimit.js";
import { deleteNatsStreams, freePort, serverModeStores, type TestServer } from "./testServer.js";
import { seedMigratedDatabase } from "@tidings/cli/testing";

/** A mailing server (mailingServer.ts) whose own log lines go to a file, for a test that searches them. */
export interface LoggedMailingServer {
  server: TestServer;
  sink: SmtpSink;
  resend: Resend;
  /** Every line the service logged, at `debug` and above, as its stdout would have had it. */
  logFile: string;
  /** Server mode: the one database the deployment keeps its events, read models and blobs in. */
  databaseName?: string;
  /** Server mode: the prefix of the deployment's JetStream streams (`<NATS_PREFIX>_`). */
  streamPrefix?: string;
  stop(): Promise<void>;
}

/**
 * startTestServer's deployment with its logger writing to a file instead of stdout. The logger is the
 * product's own (createLogger: its redaction and serializers), at `debug` so that more of what the code
 * logs is searched than an operator's `info` would keep. Every email goes to a loopback sink, from any
 * sender, and the bootstrap team's rate limit is raised out of the way.
 */
export async function startLoggedMailingServer(env: Record<string, string> = {}): Promise<LoggedMailingServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "tidings-e2e-logged-"));
  const logDir = mkdtempSync(join(tmpdir(), "tidings-e2e-log-"));
  const logFile = join(logDir, "tidings.log");
  const fd = openSync(logFile, "a");
  const cleanups: (() => Promise<void> | void)[] = [
    () => rmSync(dataDir, { recursive: true, force: true }),
    () => rmSync(logDir, { recursive: true, force: true }),
    () => closeSync(fd),
  ];
  const cleanup = async () => {
    for (const step of cleanups.splice(0).reverse()) await step();
  };
  try {
    const sink = await startSmtpSink();
    cleanups.push(() => sink.close());
    const token = `re_${randomBase62(40)}`;
    let settings: Record<string, string> = {
      PORT: String(await freePort()),
      LOG_LEVEL: "debug",
      TIDINGS_BOOTSTRAP_TOKEN: token,
      READ_YOUR_WRITES_TIMEOUT_MS: "60000",
      DATA_DIR: dataDir,
      MAIL_TRANSPORT: "smtp",
      SMTP_URL: sink.url,
      TIDINGS_ALLOW_UNVERIFIED_FROM: "true",
      ...env,
    };
    let stores: Pick<LoggedMailingServer, "databaseName" | "streamPrefix"> = {};
    if (testMode() === "server") {
      const database = await createTestDatabase({ mode: "server" });
      await database.database.close();
      settings = { ...settings, ...serverModeStores(database, "t") };
      cleanups.push(() => database.dispose());
      cleanups.push(() => deleteNatsStreams(settings.NATS_URL!, settings.NATS_PREFIX!));
      stores = { databaseName: new URL(database.url).pathname.slice(1), streamPrefix: `${settings.NATS_PREFIX}_` };
    } else {
      await seedMigratedDatabase(dataDir);
    }
    const config = loadConfig(settings);
    // pino writes what this hook returns to stdout: the line goes to the file alone.
    const logger = createLogger(config.LOG_LEVEL, { hooks: { streamWrite: (line) => (writeSync(fd, line), "") } });
    const serving = await serve(config, logger, "all", { commands: runCommand });
    cleanups.push(() => serving.stop());
    await raiseBootstrapTeamRateLimit(serving.runtime);
    const server: TestServer = { url: serving.url!, token, serving, env: settings, stop: cleanup };
    return { server, sink, resend: new Resend(token, { baseUrl: server.url }), logFile, ...stores, stop: cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
