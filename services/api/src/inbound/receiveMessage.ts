import type { BlobStore } from "@tidings/blobs";
import { handleCommand } from "@tidings/commands";
import { deterministicId, formatTimestamp, type Clock } from "@tidings/core";
import { inboundEmailDecider, inboundEmailStream, type InboundAttachment, type InboundEmail } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { parseDeliveryStatusReport, parseFeedbackReport } from "@tidings/mail";
import { mailboxes, parseReceived } from "./parseReceived.js";
import { recordBounceReport } from "./recordBounceReport.js";
import { recordComplaint, type ReportOutcome } from "./recordComplaint.js";
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
}

export interface IntakeResult {
  /** The inbound email ids recorded, one per receiving team; a retried message yields the same ids again. */
  received: string[];
  /** What came of a feedback report (a complaint) or a delivery-status report (a bounce); null when the message was neither. */
  report: { kind: "complaint" | "bounce"; outcome: ReportOutcome } | null;
}

/**
 * A received message's id, the same each time the same message reaches the same team: a sending server
 * that did not see our 250 sends it again, and it must not arrive twice. Its Message-ID names it; a
 * message without one is named by its bytes.
 */
export const inboundEmailId = (teamId: string, messageId: string | null, rawSha256: string) =>
  deterministicId("inbound-email", teamId, messageId ?? `sha256:${rawSha256}`);

/**
 * Takes in one message the SMTP listener accepted the recipients of. A feedback report is recorded as a
 * complaint, and a delivery-status report as bounces, on the email it names; a message for a receiving domain is recorded once per team, its bytes
 * in the blob store first, so the event never names a blob that is missing. The listener answers 250 only
 * after this resolves: accepted means durable.
 */
export async function receiveMessage(deps: IntakeDeps, envelope: InboundEnvelope, raw: Buffer): Promise<IntakeResult> {
  const report = await recordReport(deps, envelope, raw);
  const receivedFor = new Map<string, string[]>();
  for (const { address, teams } of envelope.recipients) for (const { teamId } of teams) receivedFor.set(teamId, [...(receivedFor.get(teamId) ?? []), address]);
  if (receivedFor.size === 0) return { received: [], report };

  const parsed = await parseReceived(raw);
  const rawBlob = await deps.blobs.put(raw);
  const attachmentBlobs = await Promise.all(parsed.attachments.map((a) => deps.blobs.put(a.content)));
  const messageId = parsed.messageId ?? null;
  const receivedAt = formatTimestamp(deps.clock.now());
  const received: string[] = [];
  for (const [teamId, addresses] of receivedFor) {
    const inboundId = inboundEmailId(teamId, messageId, rawBlob);
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
      metadata: { teamId, actor: "smtp", correlationId: inboundId, occurredAt: receivedAt },
      likelyNew: true,
    });
    received.push(inboundId);
  }
  return { received, report };
}

async function recordReport(deps: IntakeDeps, envelope: InboundEnvelope, raw: Buffer): Promise<IntakeResult["report"]> {
  const feedback = parseFeedbackReport(raw);
  if (feedback) return { kind: "complaint", outcome: await recordComplaint(deps, feedback) };
  const status = parseDeliveryStatusReport(raw);
  if (status) return { kind: "bounce", outcome: await recordBounceReport(deps, status, envelope.recipients.map((r) => r.address)) };
  return null;
}
