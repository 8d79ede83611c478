import { afterAll, beforeAll } from "vitest";
import { openEventStore, type OpenedEventStore } from "@tidings/eventstore";
import { openDatabase, type Database } from "@tidings/postgres";
import { startSmtpSink, type SmtpSink } from "@tidings/testkit";
import { startSplitRoles, type SplitRoles, type SplitRolesOptions } from "./splitRoles.js";

/** Split roles that send mail to a loopback SMTP sink, with the test's own handles on their stores; set in `beforeAll`. */
export interface MailingRoles {
  sink: SmtpSink;
  roles: SplitRoles;
  /** The event store the roles write, to read streams from. */
  events: OpenedEventStore;
  /** The roles' database, to read the read models from. */
  database: Database;
}

/**
 * The crash tests' deployment, for the describe block it is called in: unverified senders allowed, every
 * email to the sink over at most `mailConcurrency` connections, and timer leases of 5 s, so that a killed
 * process's timers come back within the test; `settings` go over these. Started in `beforeAll`, stopped
 * in `afterAll`.
 */
export function mailingRolesForSuite(
  mailConcurrency: number,
  settings: Record<string, string> = {},
  options: SplitRolesOptions = {},
): MailingRoles {
  const deployment = {} as Partial<MailingRoles>;
  beforeAll(async () => {
    const sink = (deployment.sink = await startSmtpSink());
    const roles = (deployment.roles = await startSplitRoles(
      {
        TIDINGS_ALLOW_UNVERIFIED_FROM: "true",
        MAIL_TRANSPORT: "smtp",
        SMTP_URL: sink.url,
        MAIL_CONCURRENCY: String(mailConcurrency),
        TIMER_LEASE_MS: "5000",
        ...settings,
      },
      options,
    ));
    deployment.events = await openEventStore(roles.database.url);
    deployment.database = await openDatabase({ url: roles.database.url, poolSize: 2 });
  });
  afterAll(async () => {
    await deployment.database?.close();
    await deployment.events?.close();
    await deployment.roles?.stop();
    await deployment.sink?.close();
  });
  return deployment as MailingRoles;
}
