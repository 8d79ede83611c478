import { DomainRejection, handleCommand } from "@tidings/commands";
import { formatTimestamp, type Clock } from "@tidings/core";
import { emailDecider, emailStream, type ReportedBounce } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import type { BounceAddresses, DeliveryStatusReport } from "@tidings/mail";
import { ReportTooEarly, type ReportOutcome } from "./recordComplaint.js";

const bounceType = (status: string | null): ReportedBounce["type"] =>
  status?.startsWith("5.") ? "permanent" : status?.startsWith("4.") ? "transient" : "undetermined";

/**
 * Records the failures a delivery-status report (an asynchronous bounce) gives on the email it is about.
 * Only the bounce address it was sent to names the email (`bounceAddresses`, tagged with an HMAC): the
 * Message-ID it may quote is known to every recipient, who could otherwise bounce the others. Only
 * `failed` recipients count: a `delayed` one is still being tried by the relay.
 */
export async function recordBounceReport(
  deps: { store: EventStore; clock: Clock; bounceAddresses: BounceAddresses },
  report: DeliveryStatusReport,
  sentTo: string[],
): Promise<ReportOutcome> {
  const emailId = sentTo.map((address) => deps.bounceAddresses.emailIdOf(address)).find((id) => id !== null) ?? null;
  const bounces: ReportedBounce[] = report.recipients
    .filter((r) => r.action === "failed")
    .map((r) => ({
      recipient: r.recipient,
      type: bounceType(r.status),
      message: r.diagnostic ?? `Status ${r.status ?? "unknown"}`,
      code: Number(r.diagnostic?.match(/^([245]\d\d)\b/)?.[1]) || null,
    }));
  if (emailId === null || bounces.length === 0) return "unmatched";
  const now = formatTimestamp(deps.clock.now());
  try {
    const { events } = await handleCommand({
      store: deps.store,
      streamId: emailStream(emailId),
      decider: emailDecider,
      command: { type: "RecordBounceReport", bounces, now },
      metadata: (state) => ({ ...(state.status === "none" ? {} : { teamId: state.teamId }), actor: "delivery-status-report", correlationId: emailId, occurredAt: now }),
    });
    return events.length > 0 ? "recorded" : "duplicate";
  } catch (error) {
    if (error instanceof DomainRejection && error.error.name === "not_found") return "unmatched";
    if (error instanceof DomainRejection && error.error.name === "not_yet_sent") throw new ReportTooEarly(error.message);
    throw error;
  }
}
