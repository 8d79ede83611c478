import type { z } from "zod";
import type { ContactFields, ContactPropertyValue } from "@tidings/domain";
import type { NewContact } from "@tidings/audience";
import type { createContactBody, updateContactBody } from "./contactSchemas.js";

/**
 * Wire values to the domain's. A boolean is passed through as it came so that the decider refuses it by
 * name: no contact property has a boolean type.
 */
const properties = (values: Record<string, string | number | boolean | null> | undefined) =>
  (values ?? {}) as Record<string, ContactPropertyValue | null>;

export function newContact(body: z.infer<typeof createContactBody>, extraSegmentIds: string[] = []): NewContact {
  return {
    email: body.email,
    fields: { firstName: body.first_name ?? null, lastName: body.last_name ?? null, unsubscribed: body.unsubscribed ?? false },
    properties: properties(body.properties),
    segmentIds: [...(body.segments ?? []).map((s) => s.id), ...extraSegmentIds],
    topics: (body.topics ?? []).map((t) => ({ topicId: t.id, subscription: t.subscription })),
  };
}

/** Only what the body names changes; null clears a name. */
export function contactChanges(body: z.infer<typeof updateContactBody>): {
  changes: Partial<ContactFields>;
  properties: Record<string, ContactPropertyValue | null>;
} {
  const changes: Partial<ContactFields> = {};
  if (body.first_name !== undefined) changes.firstName = body.first_name;
  if (body.last_name !== undefined) changes.lastName = body.last_name;
  if (body.unsubscribed !== undefined) changes.unsubscribed = body.unsubscribed;
  return { changes, properties: properties(body.properties) };
}
