import { DomainRejection, handleCommand } from "@tidings/commands";
import { newId } from "@tidings/core";
import { emailDecider, emailStream, type EmailCommand } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";

/**
 * What came of a report: `recorded` on the email it names; `duplicate`: that email has it already; `unmatched`: it
 * names no email of ours.
 */
export type ReportOutcome = "recorded" | "duplicate" | "unmatched";

/** A report that came too early (`not_yet_sent`): the listener answers 451, and the sending server tries later. */
export class ReportTooEarly extends Error {
  override readonly name = "ReportTooEarly";
}

/**
 * Records what a report says on the email's stream. The email's team comes from the stream, as a report
 * names no team; the decider answers a report it has already taken with nothing.
 */
export async function recordOnEmail(
  store: EventStore,
  emailId: string,
  command: EmailCommand & { now: string },
  actor: string,
): Promise<ReportOutcome> {
  const reportId = newId();
  try {
    const { events } = await handleCommand({
      store,
      streamId: emailStream(emailId),
      decider: emailDecider,
      command,
      // A report is a message of its own, no part of the request that sent the email: it starts its chain.
      metadata: (state) => ({
        ...(state.status === "none" ? {} : { teamId: state.teamId }),
        actor,
        correlationId: reportId,
        causationId: reportId,
        occurredAt: command.now,
      }),
    });
    return events.length > 0 ? "recorded" : "duplicate";
  } catch (error) {
    if (error instanceof DomainRejection && error.error.name === "not_found") return "unmatched";
    if (error instanceof DomainRejection && error.error.name === "not_yet_sent") throw new ReportTooEarly(error.message);
    throw error;
  }
}
