import { handleCommand, loadState } from "@tidings/commands";
import { formatTimestamp, parseTimestamp, TidingsError } from "@tidings/core";
import {
  emailDecider,
  emailShareDecider,
  emailShareStream,
  emailStream,
  inboundEmailDecider,
  inboundEmailStream,
  isDomainError,
  parseShareLifetime,
  type SharedEmail,
} from "@tidings/domain";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";

export interface ShareDeps {
  store: EventStore;
  clock: { now(): Date };
}

/** The email an id names, sent or received, as its own stream says (never a read model: docs/architecture.md §1). */
export async function sharedEmailOf(store: EventStore, emailId: string): Promise<SharedEmail | null> {
  const sent = await loadState(store, emailStream(emailId), emailDecider);
  if (sent.status !== "none") return { teamId: sent.teamId, source: "sent" };
  const received = await loadState(store, inboundEmailStream(emailId), inboundEmailDecider);
  if (received.status !== "none") return { teamId: received.teamId, source: "received" };
  return null;
}

export interface EmailShareCreated {
  shareId: string;
  /** On a whole second: the link carries its expiry in seconds. */
  expiresAt: Date;
  position?: Position;
}

/** `POST /emails/:id/share`: a new link to the team's email, sent or received, lasting `expires_in` (48 hours at most). */
export async function shareEmail(
  deps: ShareDeps,
  teamId: string,
  emailId: string,
  expiresIn: string | undefined,
  shareId: string,
  metadata: EventMetadata,
): Promise<EmailShareCreated> {
  const lifetime = parseShareLifetime(expiresIn);
  if (isDomainError(lifetime)) throw new TidingsError(lifetime.name, lifetime.message);
  const now = deps.clock.now();
  // Rounded up to the whole second the link carries, so a link never lasts less than was asked.
  const expiresAt = new Date(Math.ceil((now.getTime() + lifetime) / 1000) * 1000);
  const email = await sharedEmailOf(deps.store, emailId);
  const command = {
    type: "ShareEmail" as const,
    shareId,
    emailId,
    teamId,
    email,
    expiresAt: formatTimestamp(expiresAt),
    now: formatTimestamp(now),
  };
  const streamId = emailShareStream(emailId);
  const { position } = await handleCommand({ store: deps.store, streamId, decider: emailShareDecider, command, metadata });
  if (position) return { shareId, expiresAt, position };
  // A retry of a share already recorded (its id came from the Idempotency-Key): the link lasts as recorded.
  const state = await loadState(deps.store, streamId, emailShareDecider);
  const recorded = state.status === "shared" ? state.links[shareId] : undefined;
  return { shareId, expiresAt: (recorded && parseTimestamp(recorded.expiresAt)) || expiresAt };
}

/** Revokes one link of the team's email (`shareId`), or every link still working (null). */
export async function revokeEmailShare(
  deps: ShareDeps,
  teamId: string,
  emailId: string,
  shareId: string | null,
  metadata: EventMetadata,
): Promise<{ position?: Position }> {
  const email = await sharedEmailOf(deps.store, emailId);
  const command = { type: "RevokeEmailShare" as const, teamId, email, shareId, now: formatTimestamp(deps.clock.now()) };
  const { position } = await handleCommand({
    store: deps.store,
    streamId: emailShareStream(emailId),
    decider: emailShareDecider,
    command,
    metadata,
  });
  return position ? { position } : {};
}
