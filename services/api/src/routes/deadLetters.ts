import { z } from "zod";
import { formatTimestamp } from "@tidings/core";
import type { ApiRoutes } from "../app.js";
import {
  dropDeadLetter,
  findDeadLetter,
  LETTERS_PER_CONSUMER,
  listDeadLetters,
  retryDeadLetter,
  type DeadLetterDeps,
  type ListedDeadLetter,
} from "../handlers/deadLetters.js";
import { listSchema } from "../pagination.js";
import { requireAuth } from "../plugins/auth.js";
import { ok } from "../replies.js";
import { requestMetadata } from "../requestMetadata.js";
import type { ApiServices } from "../services.js";
import { wireTimestampText } from "../wireTimestamp.js";

const tags = ["admin"];
const params = z.object({ id: z.string().min(1).max(200).describe("The letter's id, `<consumer>-<number>` (`delivery-42`).") });

const letterSchema = z.object({
  object: z.literal("dead_letter"),
  id: z.string(),
  consumer: z.string().describe("The saga's durable consumer that gave up on the message."),
  subject: z.string(),
  message_id: z.string(),
  event: z
    .object({ id: z.string(), type: z.string(), stream_id: z.string() })
    .nullable()
    .describe("The recorded event the message carried: its effects are keyed on it, so a retry does nothing twice."),
  delivery_count: z.number().int(),
  error: z.string().describe("What the last delivery's handler threw."),
  dead_at: wireTimestampText(),
});

const wireLetter = ({ ref, consumer, letter, event }: ListedDeadLetter): z.infer<typeof letterSchema> => ({
  object: "dead_letter",
  id: ref,
  consumer,
  subject: letter.subject,
  message_id: letter.msgId,
  event: event && { id: event.id, type: event.type, stream_id: event.streamId },
  delivery_count: letter.deliveryCount,
  error: letter.error,
  dead_at: formatTimestamp(letter.deadAt),
});

const actedSchema = letterSchema.extend({ retried: z.boolean().optional(), dropped: z.boolean().optional() });

/**
 * `/admin/dead-letters` (docs/operations.md, "Dead letters"): the messages the sagas gave up on whose events are
 * the caller's team's, and a retry or a drop of each, recorded as an event with the key as its actor. A
 * sending-access key cannot call them (the auth plugin lets it call only the sending routes).
 */
export function deadLetterRoutes(services: ApiServices, bus: Pick<DeadLetterDeps, "bus" | "durables">): ApiRoutes {
  const deps: DeadLetterDeps = { ...bus, store: services.store, clock: services.clock };
  return (app) => {
    app.get("/admin/dead-letters", { schema: { tags, response: { 200: listSchema(letterSchema) } } }, async (request, reply) => {
      const letters = await listDeadLetters(deps, requireAuth(request).teamId);
      const counts = new Map<string, number>();
      for (const { consumer } of letters) counts.set(consumer, (counts.get(consumer) ?? 0) + 1);
      const hasMore = [...counts.values()].some((n) => n >= LETTERS_PER_CONSUMER);
      return ok(reply, { object: "list" as const, has_more: hasMore, data: letters.map(wireLetter) });
    });

    app.get("/admin/dead-letters/:id", { schema: { tags, params, response: { 200: letterSchema } } }, async (request, reply) =>
      ok(reply, wireLetter(await findDeadLetter(deps, request.params.id, requireAuth(request).teamId))),
    );

    app.post("/admin/dead-letters/:id/retry", { schema: { tags, params, response: { 200: actedSchema } } }, async (request, reply) => {
      const auth = requireAuth(request);
      const item = await retryDeadLetter(deps, request.params.id, requestMetadata(request, auth, services.clock), auth.teamId);
      return ok(reply, { ...wireLetter(item), retried: true });
    });

    app.delete("/admin/dead-letters/:id", { schema: { tags, params, response: { 200: actedSchema } } }, async (request, reply) => {
      const auth = requireAuth(request);
      const item = await dropDeadLetter(deps, request.params.id, requestMetadata(request, auth, services.clock), auth.teamId);
      return ok(reply, { ...wireLetter(item), dropped: true });
    });
  };
}
