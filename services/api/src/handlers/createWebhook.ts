import { formatTimestamp, newId, type Clock, type Config } from "@tidings/core";
import { handleCommand } from "@tidings/commands";
import { webhookDecider, webhookStream } from "@tidings/domain";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";
import { newSigningSecret, webhookSecretSealer } from "./webhookSecrets.js";

type Deps = { store: EventStore; clock: Clock; config: Config; secret: string };

export interface CreatedWebhook {
  id: string;
  /** Shown to the caller in plaintext here, and only sealed anywhere else. */
  signingSecret: string;
  position?: Position;
}

/** Where plain http endpoints are accepted: the development setups (see WEBHOOK_ALLOW_PRIVATE). */
export const allowsHttpEndpoints = (config: Config) => config.mode === "embedded" || config.WEBHOOK_ALLOW_PRIVATE;

export async function createWebhook(
  deps: Deps,
  teamId: string,
  input: { endpoint: string; events: string[] },
  metadata: EventMetadata,
  /** Given by a caller that must create the same resource when it runs again (a resumed migration). */
  webhookId: string = newId(),
): Promise<CreatedWebhook> {
  const signingSecret = newSigningSecret();
  const { position } = await handleCommand({
    store: deps.store,
    streamId: webhookStream(webhookId),
    decider: webhookDecider,
    command: {
      type: "CreateWebhook",
      webhookId,
      teamId,
      ...input,
      sealedSecret: webhookSecretSealer(deps.secret).seal(signingSecret),
      allowHttp: allowsHttpEndpoints(deps.config),
      now: formatTimestamp(deps.clock.now()),
    },
    metadata,
  });
  return { id: webhookId, signingSecret, ...(position ? { position } : {}) };
}
