import { readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { sql } from "kysely";
import { testMode, testPostgresUrl } from "@tidings/postgres";
import {
  findCanaries,
  formatFindings,
  searchAllServerDatabases,
  searchFiles,
  searchLiveRows,
  searchNatsStreams,
  type Finding,
} from "./canarySearch.js";
import type { LoggedMailingServer } from "./loggedMailingServer.js";

/** DATA_DIR entries that are not searched: the outbox is the outside world; PGlite's files are its dead rows and WAL. */
const outsideTheSearch = new Set(["outbox", "pglite"]);

/**
 * Every copy a deployment keeps of anything (docs/privacy.md), searched for the canaries (canarySearch.ts):
 * - server mode: the data of each of its databases as pg_dump writes it (events, read models, the bus's
 *   and the api's tables, the key table, the blobs), and every message its NATS streams still store;
 * - embedded mode: every table's live rows in its PGlite, read through the server's own handle;
 * - both: the service's log file, and what else DATA_DIR holds but the outbox and PGlite's own files.
 * The SMTP sink, like the outbox, stands for the recipients' mailboxes and is left out.
 */
export async function searchDeployment(deployment: LoggedMailingServer, canaries: readonly string[]): Promise<Finding[]> {
  const findings: Finding[] = [];
  if (testMode() === "server") {
    findings.push(...(await searchAllServerDatabases(testPostgresUrl(), canaries, { namePrefix: deployment.databaseName! })));
    findings.push(...(await searchNatsStreams(deployment.server.env.NATS_URL!, canaries, { streamPrefix: deployment.streamPrefix! })));
  } else {
    const { db } = deployment.server.serving.runtime.database;
    findings.push(...(await searchLiveRows((text) => sql.raw(text).execute(db), canaries)));
  }
  findings.push(...(await searchFiles(dirname(deployment.logFile), canaries)));
  const dataDir = deployment.server.env.DATA_DIR!;
  for (const entry of await readdir(dataDir, { withFileTypes: true })) {
    if (outsideTheSearch.has(entry.name)) continue;
    const path = join(dataDir, entry.name);
    if (entry.isDirectory()) findings.push(...(await searchFiles(path, canaries)));
    else if (entry.isFile()) findings.push(...findCanaries(await readFile(path), canaries, { path }));
  }
  return findings;
}

/**
 * The findings as an assertion message: first one line per copy (a table, a stream, a file) with how many
 * findings it holds and of which canaries, then each finding (formatFindings).
 */
export function describeFindings(findings: readonly Finding[], names: Readonly<Record<string, string>> = {}): string {
  if (findings.length === 0) return formatFindings(findings);
  const copies = new Map<string, { count: number; messages: Set<number>; canaries: Set<string> }>();
  for (const { where, canary } of findings) {
    const copy = where.stream
      ? `stream ${where.stream} (${where.part ?? "data"})`
      : where.path
        ? `file ${where.path}`
        : `${where.database ? `database ${where.database}, ` : ""}table ${where.table ?? "(outside table data)"}`;
    const entry = copies.get(copy) ?? { count: 0, messages: new Set(), canaries: new Set() };
    entry.count++;
    if (where.sequence !== undefined) entry.messages.add(where.sequence);
    entry.canaries.add(names[canary] ?? canary);
    copies.set(copy, entry);
  }
  const lines = [...copies].map(
    ([copy, { count, messages, canaries }]) =>
      `* ${copy}: ${count}${messages.size > 0 ? ` in ${messages.size} message(s)` : ""}, of ${[...canaries].join(", ")}`,
  );
  return [`copies holding canaries:`, ...lines, formatFindings(findings)].join("\n");
}
