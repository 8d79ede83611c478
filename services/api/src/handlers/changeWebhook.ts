import { formatTimestamp, type Clock, type Config } from "@tidings/core";
import { handleCommand } from "@tidings/commands";
import { SIGNING_SECRET_GRACE_MS, webhookDecider, webhookStream, type WebhookCommand, type WebhookStatus } from "@tidings/domain";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";
import { allowsHttpEndpoints } from "./createWebhook.js";
import { newSigningSecret, webhookSecretSealer } from "./webhookSecrets.js";

type Deps = { store: EventStore; clock: Clock; config: Config; secret: string };

export interface ChangedWebhook {
  id: string;
  position?: Position;
}

async function run(deps: Deps, webhookId: string, command: WebhookCommand, metadata: EventMetadata): Promise<ChangedWebhook> {
  const { position } = await handleCommand({ store: deps.store, streamId: webhookStream(webhookId), decider: webhookDecider, command, metadata });
  return { id: webhookId, ...(position ? { position } : {}) };
}

export function updateWebhook(
  deps: Deps,
  teamId: string,
  webhookId: string,
  changes: { endpoint?: string | undefined; events?: string[] | undefined; status?: WebhookStatus | undefined },
  metadata: EventMetadata,
): Promise<ChangedWebhook> {
  const command: WebhookCommand = { type: "UpdateWebhook", teamId, ...changes, allowHttp: allowsHttpEndpoints(deps.config), now: formatTimestamp(deps.clock.now()) };
  return run(deps, webhookId, command, metadata);
}

export function deleteWebhook(deps: Deps, teamId: string, webhookId: string, metadata: EventMetadata): Promise<ChangedWebhook> {
  return run(deps, webhookId, { type: "DeleteWebhook", teamId, now: formatTimestamp(deps.clock.now()) }, metadata);
}

/** A new secret signs from now on; the old one signs beside it for 24 h, so receivers can switch unhurried. */
export async function rotateWebhookSecret(deps: Deps, teamId: string, webhookId: string, metadata: EventMetadata): Promise<ChangedWebhook & { signingSecret: string }> {
  const now = deps.clock.now();
  const signingSecret = newSigningSecret();
  const command: WebhookCommand = {
    type: "RotateWebhookSecret",
    teamId,
    sealedSecret: webhookSecretSealer(deps.secret).seal(signingSecret),
    graceUntil: formatTimestamp(new Date(now.getTime() + SIGNING_SECRET_GRACE_MS)),
    now: formatTimestamp(now),
  };
  return { ...(await run(deps, webhookId, command, metadata)), signingSecret };
}
