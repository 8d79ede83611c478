import { randomUUID } from "node:crypto";
import { formatTimestamp } from "@tidings/core";
import { handleCommand } from "@tidings/commands";
import { broadcastDecider, broadcastStream } from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";

/** A broadcast to `segmentId`, created and sent through its decider as the api would; its id. */
export async function sendTestBroadcast(
  store: EventStore,
  {
    teamId,
    segmentId,
    metadata,
    sendMetadata = metadata,
    scheduledAt = null,
  }: {
    teamId: string;
    segmentId: string;
    metadata: EventMetadata;
    /** The send's metadata, where it differs from the creation's. */
    sendMetadata?: EventMetadata;
    scheduledAt?: string | null;
  },
): Promise<string> {
  const broadcastId = randomUUID();
  const content = {
    name: "News",
    segmentId,
    from: "Acme <news@acme.test>",
    subject: "News",
    html: "<p>News</p>",
    text: null,
    replyTo: null,
    previewText: null,
    topicId: null,
  };
  const streamId = broadcastStream(broadcastId);
  const now = () => formatTimestamp(new Date());
  await handleCommand({
    store,
    streamId,
    decider: broadcastDecider,
    command: { type: "CreateBroadcast", broadcastId, teamId, origin: "api", content, duplicatedFrom: null, now: now() },
    metadata,
  });
  await handleCommand({
    store,
    streamId,
    decider: broadcastDecider,
    command: { type: "SendBroadcast", teamId, scheduledAt, domainId: null, now: now() },
    metadata: sendMetadata,
  });
  return broadcastId;
}
