import { formatTimestamp } from "@tidings/core";
import { emailDecider, emailStream, type EmailCommand } from "@tidings/domain";
import { DomainRejection, handleCommand } from "@tidings/commands";
import type { ApiServices } from "../services.js";

export interface TrackingRequest {
  requestId: string;
  ipAddress: string | null;
  userAgent: string | null;
}

type EngagementCommand = Extract<EmailCommand, { type: "RecordEmailOpened" | "RecordEmailClicked" }>;

/**
 * Appends the open or click to the email's stream, where the decider classifies it against the email's
 * delivery. The token named the email; its team comes from the stream. An email that no longer exists
 * (erased) records nothing. No read-your-writes wait: the recipient is waiting for a page, not for a read.
 */
export async function recordEngagement(
  services: ApiServices,
  emailId: string,
  engagement: { type: "RecordEmailOpened" } | { type: "RecordEmailClicked"; link: string; linkIndex: number },
  request: TrackingRequest,
): Promise<void> {
  const now = formatTimestamp(services.clock.now());
  const command = { ...engagement, ipAddress: request.ipAddress, userAgent: request.userAgent, now } as EngagementCommand;
  try {
    await handleCommand({
      store: services.store,
      streamId: emailStream(emailId),
      decider: emailDecider,
      command,
      metadata: (state) => ({
        ...(state.status === "none" ? {} : { teamId: state.teamId }),
        actor: "recipient",
        requestId: request.requestId,
        // An open or a click is a request of its own, by the recipient: it starts the chain its webhooks follow.
        correlationId: request.requestId,
        causationId: request.requestId,
        occurredAt: now,
      }),
    });
  } catch (error) {
    if (error instanceof DomainRejection && error.error.name === "not_found") return;
    throw error;
  }
}
