import { statfs } from "node:fs/promises";
import { sql } from "kysely";
import { connect as connectNats } from "nats";
import type { Config } from "@tidings/core";
import { openDatabase, type Database } from "@tidings/postgres";
import { projectionStatus } from "@tidings/projections";
import { sagaDurables } from "@tidings/sagas";
import type { Runtime } from "../runtime.js";
import { projections } from "../projections.js";
import { auditCheck } from "./auditCheck.js";
import { domainDnsCheck } from "./domainDnsCheck.js";
import { secretStrength } from "./secretStrength.js";
import { sendingPausesCheck } from "./sendingPausesCheck.js";
import { smtpEhlo } from "./smtpEhlo.js";

export interface CheckResult {
  check: string;
  ok: boolean;
  detail: string;
  /** What to do, on failure. */
  fix?: string;
}

const timeoutMs = 5_000;
/** Past this the database's clock and ours disagree enough to misorder scheduled sends, timers and expiries. */
const clockSkewLimitMs = 2_000;
const minFreeBytes = 1024 ** 3;

const withinTime = <T>(work: Promise<T>): Promise<T> =>
  Promise.race([
    work,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs).unref()),
  ]);

const failed = (check: string, error: unknown, fix: string): CheckResult => ({
  check,
  ok: false,
  detail: error instanceof Error ? error.message : String(error),
  fix,
});

/**
 * Every check of `tidings doctor`, one result each. `runtime` is the process's stores when they opened;
 * without them (a dependency down) the checks that read through them fail, and the connection checks say
 * which dependency it was.
 */
export async function installationChecks(config: Config, runtime: Runtime | undefined): Promise<CheckResult[]> {
  const database = await databaseCheck(config, runtime);
  return [
    { check: "settings", ok: true, detail: `${config.mode} mode, event store ${config.eventStoreKind}, mail ${config.MAIL_TRANSPORT}` },
    secretCheck(config, runtime),
    database.result,
    await natsCheck(config),
    await smtpCheck(config),
    database.clock,
    ...(await storeChecks(config, runtime)),
    await diskCheck(config),
  ];
}

function secretCheck(config: Config, runtime: Runtime | undefined): CheckResult {
  const check = "secret";
  if (!config.TIDINGS_SECRET)
    return { check, ok: true, detail: runtime ? "generated into DATA_DIR" : "generated into DATA_DIR on first start" };
  const { bits, strong } = secretStrength(config.TIDINGS_SECRET);
  return strong
    ? { check, ok: true, detail: `about ${bits} bits` }
    : {
        check,
        ok: false,
        detail: `TIDINGS_SECRET looks typed, not generated (about ${bits} bits, few distinct characters)`,
        fix: "use a generated secret (openssl rand -base64 32) before the first start: it keys every sealed value, so changing it later loses them",
      };
}

async function databaseCheck(config: Config, runtime: Runtime | undefined): Promise<{ result: CheckResult; clock: CheckResult }> {
  const check = "PostgreSQL";
  const fix =
    config.mode === "server"
      ? "check DATABASE_URL, that PostgreSQL runs and takes connections from here"
      : "start tidings once to create DATA_DIR";
  let opened: Database | undefined;
  try {
    if (!runtime && config.mode === "embedded") throw new Error("the embedded database did not open");
    const database = runtime?.database ?? (opened = await withinTime(openDatabase({ url: config.DATABASE_URL! })));
    const sentAt = Date.now();
    const { rows } = await withinTime(sql<{ now: Date }>`SELECT now() AS now`.execute(database.db));
    const skewMs = Math.abs(new Date(rows[0]!.now).getTime() - (sentAt + Date.now()) / 2);
    const clock: CheckResult =
      skewMs <= clockSkewLimitMs
        ? { check: "clock", ok: true, detail: `${Math.round(skewMs)} ms from the database's` }
        : {
            check: "clock",
            ok: false,
            detail: `${Math.round(skewMs)} ms from the database's`,
            fix: "synchronise both machines' clocks (NTP): scheduled sends, timers and expiries compare them",
          };
    return { result: { check, ok: true, detail: config.mode === "server" ? "answers" : "embedded (PGlite) opens" }, clock };
  } catch (error) {
    return { result: failed(check, error, fix), clock: { check: "clock", ok: false, detail: "not compared: no database", fix } };
  } finally {
    await opened?.close();
  }
}

async function natsCheck(config: Config): Promise<CheckResult> {
  const check = "NATS";
  if (!config.NATS_URL) return { check, ok: true, detail: "not used: the bus lives in the database" };
  try {
    const nc = await withinTime(connectNats({ servers: config.NATS_URL, timeout: timeoutMs, reconnect: false }));
    try {
      await withinTime((await nc.jetstreamManager()).getAccountInfo());
      return { check, ok: true, detail: "answers, with JetStream" };
    } finally {
      await nc.close();
    }
  } catch (error) {
    return failed(check, error, "check NATS_URL, that nats-server runs with JetStream (-js) and takes connections from here");
  }
}

async function smtpCheck(config: Config): Promise<CheckResult> {
  const check = "SMTP relay";
  if (config.MAIL_TRANSPORT !== "smtp") return { check, ok: true, detail: `not used: MAIL_TRANSPORT=${config.MAIL_TRANSPORT}` };
  try {
    return { check, ok: true, detail: `EHLO answered ${await smtpEhlo(config.SMTP_URL!, timeoutMs)}` };
  } catch (error) {
    return failed(check, error, "check SMTP_URL's host and port, and that the relay takes connections from here");
  }
}

async function storeChecks(config: Config, runtime: Runtime | undefined): Promise<CheckResult[]> {
  if (!runtime) {
    const detail = "not read: the stores did not open";
    const fix = "fix the failed connections above first";
    return [
      { check: "projection lag", ok: false, detail, fix },
      { check: "dead letters", ok: false, detail, fix },
      { check: "domain DNS", ok: false, detail, fix },
      { check: "audit", ok: false, detail, fix },
      { check: "sending pauses", ok: false, detail, fix },
    ];
  }
  const limit = config.READY_MAX_PROJECTION_LAG_SECONDS || 60;
  const statuses = await projectionStatus({ store: runtime.storedEvents, database: runtime.database, projections, lagCap: 1000 });
  const behind = statuses.filter((s) => s.lagSeconds > limit || s.state === "stopped");
  const lag: CheckResult =
    behind.length === 0
      ? { check: "projection lag", ok: true, detail: `every projection live, within ${limit} s` }
      : {
          check: "projection lag",
          ok: false,
          detail: behind.map((s) => `${s.name} ${s.state}, ${s.lagSeconds.toFixed(0)} s behind`).join("; "),
          fix: "start the projector role, or read its log for the batch that fails (tidings projections status)",
        };
  const dead = await Promise.all(
    sagaDurables.map(async (durable) => ({ durable, n: (await runtime.bus.deadLetters(durable, 20)).length })),
  );
  const holding = dead.filter(({ n }) => n > 0);
  const letters: CheckResult =
    holding.length === 0
      ? { check: "dead letters", ok: true, detail: "none" }
      : {
          check: "dead letters",
          ok: false,
          detail: holding.map(({ durable, n }) => `${durable} ${n}${n === 20 ? "+" : ""}`).join(", "),
          fix: "read them with tidings deadletters list, fix their cause, then retry or drop each (docs/operations.md, Dead letters)",
        };
  const dns = await domainDnsCheck(config, runtime.database).catch((error: unknown) =>
    failed("domain DNS", error, "check DNS_SERVERS and that the read models are there (tidings projections status)"),
  );
  const audit = await auditCheck(runtime.storedEvents, runtime.secret).catch((error: unknown) =>
    failed("audit", error, "run tidings audit verify and read what it says"),
  );
  const pauses = await sendingPausesCheck(runtime.database).catch((error: unknown) =>
    failed("sending pauses", error, "check that the read models are there (tidings projections status)"),
  );
  return [lag, letters, dns, audit, pauses];
}

async function diskCheck(config: Config): Promise<CheckResult> {
  const check = "disk";
  try {
    const fs = await statfs(config.DATA_DIR);
    const free = fs.bavail * fs.bsize;
    const share = fs.bavail / fs.blocks;
    const detail = `${(free / 1024 ** 3).toFixed(1)} GiB free in DATA_DIR (${Math.round(share * 100)}%)`;
    return free >= minFreeBytes && share >= 0.05
      ? { check, ok: true, detail }
      : { check, ok: false, detail, fix: "free space where DATA_DIR lives: the outbox, blobs and embedded database grow there" };
  } catch (error) {
    return failed(check, error, "create DATA_DIR, or set DATA_DIR to a directory this process may write");
  }
}
