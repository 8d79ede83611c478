import { StopOrder } from "@tidings/core";
import { openEventStore, type OpenedEventStore } from "@tidings/eventstore";
import { openDatabase, type Database } from "@tidings/postgres";
import { startSmtpSink, type SmtpSink } from "@tidings/testkit";
import { startSplitRoles, type SplitRoles, type SplitRolesOptions } from "./splitRoles.js";

/** Split roles that send mail to a loopback SMTP sink, with the test's own handles on their stores. */
export interface MailingRoles {
  sink: SmtpSink;
  roles: SplitRoles;
  /** The event store the roles write, to read streams from. */
  events: OpenedEventStore;
  /** The roles' database, to read the read models from. */
  database: Database;
  /** Closes the handles, stops the roles and the sink. */
  stop(): Promise<void>;
}

/**
 * The crash tests' deployment: unverified senders allowed, every email to the sink over at most
 * `mailConcurrency` connections, and timer leases of 5 s, so that a killed process's timers come back
 * within the test. `settings` go over these.
 */
export async function startMailingRoles(mailConcurrency: number, settings: Record<string, string> = {}, options: SplitRolesOptions = {}): Promise<MailingRoles> {
  const parts = new StopOrder();
  const stop = () =>
    parts.stop((error) => {
      throw error;
    });
  try {
    const sink = await startSmtpSink();
    parts.add("sink", () => sink.close());
    const roles = await startSplitRoles(
      { TIDINGS_ALLOW_UNVERIFIED_FROM: "true", MAIL_TRANSPORT: "smtp", SMTP_URL: sink.url, MAIL_CONCURRENCY: String(mailConcurrency), TIMER_LEASE_MS: "5000", ...settings },
      options,
    );
    parts.add("roles", () => roles.stop());
    const events = await openEventStore(roles.database.url);
    parts.add("event store", () => events.close());
    const database = await openDatabase({ url: roles.database.url, poolSize: 2 });
    parts.add("database", () => database.close());
    return { sink, roles, events, database, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
