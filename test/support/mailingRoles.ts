import { afterAll, beforeAll } from "vitest";
import { openEventStore, type OpenedEventStore } from "@tidings/eventstore";
import { openDatabase, type Database } from "@tidings/postgres";
import { startSmtpSink, type SmtpSink } from "@tidings/testkit";
import { startSplitRoles, type SplitRoles, type SplitRolesOptions } from "./splitRoles.js";

/** Split roles that send mail to a loopback SMTP sink, with the test's own handles on their stores. */
export interface MailingRoles {
  readonly sink: SmtpSink;
  readonly roles: SplitRoles;
  /** The event store the roles write, to read streams from. */
  readonly events: OpenedEventStore;
  /** The roles' database, to read the read models from. */
  readonly database: Database;
}

/**
 * The crash tests' deployment, for the describe block it is called in: unverified senders allowed, every
 * email to the sink over at most `mailConcurrency` connections, and timer leases of 5 s, so that a killed
 * process's timers come back within the test; `settings` go over these. Started in `beforeAll`, stopped
 * in `afterAll`.
 */
export function mailingRolesForSuite(mailConcurrency: number, settings: Record<string, string> = {}, options: SplitRolesOptions = {}): MailingRoles {
  let sink: SmtpSink | undefined;
  let roles: SplitRoles | undefined;
  let events: OpenedEventStore | undefined;
  let database: Database | undefined;
  beforeAll(async () => {
    sink = await startSmtpSink();
    roles = await startSplitRoles(
      { TIDINGS_ALLOW_UNVERIFIED_FROM: "true", MAIL_TRANSPORT: "smtp", SMTP_URL: sink.url, MAIL_CONCURRENCY: String(mailConcurrency), TIMER_LEASE_MS: "5000", ...settings },
      options,
    );
    events = await openEventStore(roles.database.url);
    database = await openDatabase({ url: roles.database.url, poolSize: 2 });
  });
  afterAll(async () => {
    await database?.close();
    await events?.close();
    await roles?.stop();
    await sink?.close();
  });
  const started = <T>(part: T | undefined): T => {
    if (part === undefined) throw new Error("the roles start in beforeAll: use them in a test or a later hook");
    return part;
  };
  return {
    get sink() {
      return started(sink);
    },
    get roles() {
      return started(roles);
    },
    get events() {
      return started(events);
    },
    get database() {
      return started(database);
    },
  };
}
