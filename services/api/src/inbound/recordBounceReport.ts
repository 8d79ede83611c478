import { formatTimestamp, type Clock } from "@tidings/core";
import type { ReportedBounce } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import type { BounceAddresses, DeliveryStatusReport } from "@tidings/mail";
import { recordOnEmail, type ReportOutcome } from "./recordOnEmail.js";

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
  return recordOnEmail(
    deps.store,
    emailId,
    { type: "RecordBounceReport", bounces, now: formatTimestamp(deps.clock.now()) },
    "delivery-status-report",
  );
}
