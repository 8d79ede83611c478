import { formatTimestamp, type Clock, type Config } from "@tidings/core";
import { commandRunner, type Changed } from "@tidings/commands";
import { SIGNING_SECRET_GRACE_MS, webhookDecider, webhookStream, type WebhookCommand, type WebhookStatus } from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";
import { allowsHttpEndpoints } from "./createWebhook.js";
import { newSigningSecret, webhookSecretSealer } from "./webhookSecrets.js";

type Deps = { store: EventStore; clock: Clock; config: Config; secret: string };

const run = commandRunner(webhookStream, webhookDecider);

export function updateWebhook(
  deps: Deps,
  teamId: string,
  webhookId: string,
  changes: { endpoint?: string | undefined; events?: string[] | undefined; status?: WebhookStatus | undefined },
  metadata: EventMetadata,
): Promise<Changed> {
  const command: WebhookCommand = {
    type: "UpdateWebhook",
    teamId,
    ...changes,
    allowHttp: allowsHttpEndpoints(deps.config),
    now: formatTimestamp(deps.clock.now()),
  };
  return run(deps.store, webhookId, command, metadata);
}

export function deleteWebhook(deps: Deps, teamId: string, webhookId: string, metadata: EventMetadata): Promise<Changed> {
  return run(deps.store, webhookId, { type: "DeleteWebhook", teamId, now: formatTimestamp(deps.clock.now()) }, metadata);
}

/** A new secret signs from now on; the old one signs beside it for 24 h, so receivers can switch unhurried. */
export async function rotateWebhookSecret(
  deps: Deps,
  teamId: string,
  webhookId: string,
  metadata: EventMetadata,
): Promise<Changed & { signingSecret: string }> {
  const now = deps.clock.now();
  const signingSecret = newSigningSecret();
  const command: WebhookCommand = {
    type: "RotateWebhookSecret",
    teamId,
    sealedSecret: webhookSecretSealer(deps.secret).seal(signingSecret),
    graceUntil: formatTimestamp(new Date(now.getTime() + SIGNING_SECRET_GRACE_MS)),
    now: formatTimestamp(now),
  };
  return { ...(await run(deps.store, webhookId, command, metadata)), signingSecret };
}
