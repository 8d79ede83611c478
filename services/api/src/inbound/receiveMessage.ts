import type { BlobStore } from "@tidings/blobs";
import { handleCommand } from "@tidings/commands";
import { deterministicId, formatTimestamp, type Clock } from "@tidings/core";
import { inboundEmailDecider, inboundEmailStream, type InboundAttachment, type InboundEmail } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { parseDeliveryStatusReport, parseFeedbackReport, type BounceAddresses } from "@tidings/mail";
import { mailboxes, parseReceived } from "./parseReceived.js";
import { recordBounceReport } from "./recordBounceReport.js";
import { recordComplaint } from "./recordComplaint.js";
import type { ReportOutcome } from "./recordOnEmail.js";
import type { ReceivingTeam } from "./inboundDomains.js";

export interface InboundEnvelope {
  /** MAIL FROM; null for the empty reverse path of a bounce or report. */
  mailFrom: string | null;
  /** Each accepted RCPT TO, with the teams receiving for its domain (none for the feedback address). */
  recipients: { address: string; teams: ReceivingTeam[] }[];
}

export interface IntakeDeps {
  store: EventStore;
  blobs: BlobStore;
  clock: Clock;
  bounceAddresses: BounceAddresses;
}

export interface IntakeResult {
  /** The inbound email ids recorded, one per receiving team; a retried message yields the same ids again. */
  received: string[];
  /** What came of a feedback report (a complaint) or a delivery-status report (a bounce); null when the message was neither. */
  report: { kind: "complaint" | "bounce"; outcome: ReportOutcome } | null;
}

/**
 * A received message's id, the same each time the same transaction reaches the same team again: a sending
 * server that did not see our 250 sends it again, and it must not arrive twice. Its Message-ID and the
 * recipients it was for name it (a message without one is named by its bytes): the same message sent in
 * another transaction to other recipients (a Bcc sent apart, a list's copy) is received again for them.
 */
export const inboundEmailId = (teamId: string, messageId: string | null, rawSha256: string, receivedFor: string[]) =>
  deterministicId(
    "inbound-email",
    teamId,
    messageId ?? `sha256:${rawSha256}`,
    ...[...new Set(receivedFor.map((a) => a.toLowerCase()))].sort(),
  );

/**
 * Takes in one message the SMTP listener accepted the recipients of. A feedback report to a report address
 * is recorded as a complaint, and a delivery-status report as bounces, on the email it names. A message
 * for a receiving domain is recorded once per team, its bytes in the blob store first, so the event never
 * names a blob that is missing. The listener answers 250 only after this resolves: accepted means durable.
 */
export async function receiveMessage(deps: IntakeDeps, envelope: InboundEnvelope, raw: Buffer): Promise<IntakeResult> {
  const report = await recordReport(deps, envelope, raw);
  const receivedFor = new Map<string, string[]>();
  for (const { address, teams } of envelope.recipients)
    for (const { teamId } of teams) receivedFor.set(teamId, [...(receivedFor.get(teamId) ?? []), address]);
  if (receivedFor.size === 0) return { received: [], report };

  const parsed = await parseReceived(raw);
  const rawBlob = await deps.blobs.put(raw);
  const attachmentBlobs = await Promise.all(parsed.attachments.map((a) => deps.blobs.put(a.content)));
  const messageId = parsed.messageId ?? null;
  const receivedAt = formatTimestamp(deps.clock.now());
  const received: string[] = [];
  for (const [teamId, addresses] of receivedFor) {
    const inboundId = inboundEmailId(teamId, messageId, rawBlob, addresses);
    const attachments: InboundAttachment[] = parsed.attachments.map((a, index) => ({
      id: deterministicId("inbound-attachment", inboundId, String(index)),
      filename: a.filename ?? null,
      contentType: a.contentType,
      size: a.size,
      contentId: a.cid ?? null,
      disposition: a.contentDisposition ?? null,
      blob: attachmentBlobs[index]!,
    }));
    const email: InboundEmail = {
      inboundId,
      teamId,
      from: mailboxes(parsed.from)[0] ?? envelope.mailFrom ?? "",
      to: mailboxes(parsed.to),
      cc: mailboxes(parsed.cc),
      bcc: mailboxes(parsed.bcc),
      replyTo: mailboxes(parsed.replyTo),
      receivedFor: addresses,
      mailFrom: envelope.mailFrom,
      messageId,
      subject: parsed.subject ?? "",
      raw: { blob: rawBlob, size: raw.byteLength },
      attachments,
      receivedAt,
    };
    await handleCommand({
      store: deps.store,
      streamId: inboundEmailStream(inboundId),
      decider: inboundEmailDecider,
      command: { type: "ReceiveInboundEmail", email },
      // The message starts its chain: its id stands where a request id would (docs/events.md, Metadata).
      metadata: { teamId, actor: "smtp", correlationId: inboundId, causationId: inboundId, occurredAt: receivedAt },
      likelyNew: true,
    });
    received.push(inboundId);
  }
  return { received, report };
}

/**
 * Reports count only at the addresses that take them (a return path, the feedback address): at a team's
 * receiving address, a report is mail like any other, and whoever sent it cannot touch the team's emails.
 * A report the parsers cannot make sense of is not one.
 */
async function recordReport(deps: IntakeDeps, envelope: InboundEnvelope, raw: Buffer): Promise<IntakeResult["report"]> {
  const reportAddresses = envelope.recipients.filter((r) => r.teams.length === 0).map((r) => r.address);
  if (reportAddresses.length === 0) return null;
  const feedback = parsedOrNull(() => parseFeedbackReport(raw));
  if (feedback) return { kind: "complaint", outcome: await recordComplaint(deps, feedback) };
  const status = parsedOrNull(() => parseDeliveryStatusReport(raw));
  if (status) return { kind: "bounce", outcome: await recordBounceReport(deps, status, reportAddresses) };
  return null;
}

function parsedOrNull<T>(parse: () => T | null): T | null {
  try {
    return parse();
  } catch {
    return null;
  }
}
