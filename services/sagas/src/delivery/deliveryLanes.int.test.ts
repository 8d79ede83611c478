import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { formatTimestamp } from "@tidings/core";
import { queueEmail } from "@tidings/sending";
import { testMode } from "@tidings/postgres";
import { bulkLane } from "../durables.js";
import { requestLikeMetadata } from "../testing/expectChain.js";
import { deliveryToSinkForFile } from "../testing/deliveryToSink.js";

describe(`delivery lanes (${testMode() === "server" ? "PostgreSQL and NATS" : "PGlite and the in-process bus"})`, () => {
  // Two connections, each reply held 300 ms: forty emails take three seconds to send, one after another.
  const delivery = deliveryToSinkForFile({ MAIL_CONCURRENCY: "2" });
  const { content, send } = delivery;

  it("sends a transactional email ahead of a broadcast's backlog queued before it, and the whole backlog once", async () => {
    delivery.sink.delayReplies(300);
    const broadcastId = randomUUID();
    const bulk = Array.from({ length: 40 }, () => content({ broadcastId }));
    // As the fan-out queues a broadcast's emails: derived ids, in the bulk lane.
    const metadata = { ...requestLikeMetadata(delivery.teamId, randomUUID()), lane: bulkLane };
    for (const email of bulk) {
      await queueEmail(
        delivery.store,
        { content: email, scheduledAt: null, suppressed: [], now: formatTimestamp(new Date()), metadata },
        "derived",
      );
    }
    const transactional = await send(content());
    const received = await delivery.sink.waitForMessages(41, 30_000);
    const order = received.map((message) => message.messageId);
    const place = order.indexOf(`<${transactional}@tidings.test>`);
    // In one lane it would come 41st, after every email queued before it. Here it waits only for the
    // sends already under way when it came, however many the appends above let start.
    expect(place).toBeGreaterThanOrEqual(0);
    expect(place).toBeLessThan(20);
    expect(new Set(order).size).toBe(41);
    expect(order.filter((id) => bulk.some((email) => id === `<${email.emailId}@tidings.test>`))).toHaveLength(40);
  });
});
