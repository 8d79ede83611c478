import { formatTimestamp, type Clock } from "@tidings/core";
import { handleCommand } from "@tidings/commands";
import { webhookDeliveryDecider, webhookDeliveryStream } from "@tidings/domain";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";

/**
 * Starts a delivery over (docs/wire-compatibility.md §8.4, manual replay). The webhook saga sees the replay on the bus and
 * sends the same payload under the same message id.
 */
export async function replayWebhookEvent(
  deps: { store: EventStore; clock: Clock },
  teamId: string,
  webhookId: string,
  deliveryId: string,
  metadata: EventMetadata,
): Promise<{ position?: Position }> {
  const { position } = await handleCommand({
    store: deps.store,
    streamId: webhookDeliveryStream(deliveryId),
    decider: webhookDeliveryDecider,
    command: { type: "ReplayWebhookDelivery", teamId, webhookId, now: formatTimestamp(deps.clock.now()) },
    metadata,
  });
  return position ? { position } : {};
}
