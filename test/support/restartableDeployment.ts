import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll } from "vitest";
import { randomBase62 } from "@tidings/core";
import { openEventStore } from "@tidings/eventstore";
import { openDatabase } from "@tidings/postgres";
import { startSmtpSink, type SmtpSink } from "@tidings/testkit";
import { startPrivateNats, type PrivateNats } from "./privateNats.js";
import { startPrivatePostgres, type PrivatePostgres } from "./privatePostgres.js";
import { raiseBootstrapTeamRateLimit } from "./rateLimit.js";
import { startRoleProcesses, type RoleProcesses } from "./roleProcesses.js";
import { freePort } from "./testServer.js";
import { startWebhookReceiver, type WebhookReceiver } from "./webhookReceiver.js";

/**
 * Every role in a child process of its own, on a PostgreSQL and a NATS server of the test's own (never the
 * machine's shared ones), sending mail to a loopback sink and webhooks to a loopback receiver: what a test
 * that kills the roles and restarts the dependencies runs on. Set in `beforeAll`.
 */
export interface RestartableDeployment {
  postgres: PrivatePostgres;
  nats: PrivateNats;
  sink: SmtpSink;
  receiver: WebhookReceiver;
  roles: RoleProcesses;
  /** The api's base URL. */
  url: string;
  /** A full-access token of the bootstrap team, whose rate limit is raised out of the way. */
  token: string;
  /** The settings every role runs with: a `tidings` command run with them works on this deployment. */
  env: Record<string, string>;
  /** `/ready`'s status now, or 0 when nothing answers. */
  readyStatus(): Promise<number>;
  /** Waits until `/ready` says `ready` (200) or not; resolves with how long that took, or throws past `timeoutMs`. */
  waitForReady(ready: boolean, timeoutMs: number): Promise<number>;
}

/**
 * The deployment for the describe block it is called in, on `settings` over every role's own, started in
 * `beforeAll` unless `unavailable` says why it cannot run here, and stopped in `afterAll`.
 */
export function restartableDeploymentForSuite(settings: Record<string, string>, unavailable: string | undefined): RestartableDeployment {
  const deployment = { url: "", token: `re_${randomBase62(40)}` } as RestartableDeployment;
  let dataDir = "";
  deployment.readyStatus = async () => {
    try {
      return (await fetch(`${deployment.url}/ready`, { signal: AbortSignal.timeout(5_000) })).status;
    } catch {
      return 0;
    }
  };
  deployment.waitForReady = async (ready, timeoutMs) => {
    const started = Date.now();
    while (((await deployment.readyStatus()) === 200) !== ready) {
      if (Date.now() - started > timeoutMs)
        throw new Error(`/ready was not ${ready ? "200" : "an error"} within ${timeoutMs} ms: ${deployment.roles?.output("api", 2_000)}`);
      await sleep(100);
    }
    return Date.now() - started;
  };

  beforeAll(async () => {
    if (unavailable) return;
    const [postgres, nats, sink, receiver] = await Promise.all([
      startPrivatePostgres(),
      startPrivateNats(),
      startSmtpSink(),
      startWebhookReceiver(),
    ]);
    Object.assign(deployment, { postgres, nats, sink, receiver });
    dataDir = mkdtempSync(join(tmpdir(), "tidings-restarts-"));
    const port = await freePort();
    deployment.url = `http://127.0.0.1:${port}`;
    deployment.env = {
      PORT: String(port),
      LOG_LEVEL: "warn",
      TIDINGS_BOOTSTRAP_TOKEN: deployment.token,
      EVENTSTORE_URL: postgres.url,
      DATABASE_URL: postgres.url,
      NATS_URL: nats.url,
      TIDINGS_SECRET: randomBase62(40),
      TIDINGS_ALLOW_UNVERIFIED_FROM: "true",
      MAIL_TRANSPORT: "smtp",
      SMTP_URL: sink.url,
      TIMER_LEASE_MS: "5000",
      WEBHOOK_ALLOW_PRIVATE: "true",
      // Server mode keeps nothing there, but the setting must name a directory.
      DATA_DIR: dataDir,
      ...settings,
    };
    const roles = (deployment.roles = startRoleProcesses(deployment.env));
    for (const role of ["projector", "api", "sagas"] as const) await roles.start(role);
    await deployment.waitForReady(true, 60_000);
    const opened = await openEventStore(postgres.url);
    const database = await openDatabase({ url: postgres.url, poolSize: 2 });
    try {
      await raiseBootstrapTeamRateLimit({ store: opened.store, database });
    } finally {
      await database.close();
      await opened.close();
    }
  }, 120_000);
  afterAll(async () => {
    await deployment.roles?.stop();
    await Promise.all([deployment.postgres?.dispose(), deployment.nats?.dispose(), deployment.sink?.close(), deployment.receiver?.close()]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  return deployment;
}
