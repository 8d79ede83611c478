import { fold } from "../../decider.js";
import { contactDecider } from "../../contact/decider.js";
import type { ContactErased, ContactEvent } from "../../contact/events.js";
import { CONTACT_IMPORT_ACTOR } from "../../contactimport/events.js";
import { isoTime, type PayloadBuilder, type SourceEvent, type WebhookEventCategory } from "./category.js";

type Data<Type extends ContactEvent["type"]> = Extract<ContactEvent, { type: Type }>["data"];

/** docs/wire-compatibility.md §6.10: contact webhooks are not fired for what a CSV import creates or changes. */
const fromImport = (event: SourceEvent) => event.metadata?.actor === CONTACT_IMPORT_ACTOR;

/**
 * The contact as of the event (docs/wire-compatibility.md §8.2), from its stream up to it. `audience_id` is the legacy
 * name of a segment: the first one the contact is in.
 */
function contactPayload(type: string, updatedAt: (event: SourceEvent) => string): PayloadBuilder {
  return (event, history) => {
    if (fromImport(event)) return null;
    const state = fold(contactDecider, history as ContactEvent[]);
    const created = history.find((e) => e.type === "ContactCreated")?.data as Data<"ContactCreated"> | undefined;
    if (state.status !== "active" || !created) return null;
    const at = isoTime(updatedAt(event));
    return {
      type,
      created_at: at,
      data: {
        id: state.contactId,
        audience_id: state.segmentIds[0] ?? null,
        segment_ids: state.segmentIds,
        created_at: isoTime(created.createdAt),
        updated_at: at,
        email: state.email,
        ...(state.firstName !== null ? { first_name: state.firstName } : {}),
        ...(state.lastName !== null ? { last_name: state.lastName } : {}),
        unsubscribed: state.unsubscribed,
      },
    };
  };
}

const topicsUpdated: PayloadBuilder = (event, history) => {
  if (fromImport(event)) return null;
  const state = fold(contactDecider, history as ContactEvent[]);
  if (state.status !== "active") return null;
  const data = event.data as Data<"ContactTopicsUpdated">;
  return {
    type: "contact.topics.updated",
    created_at: isoTime(data.updatedAt),
    data: { id: state.contactId, email: state.email, topics: data.topics.map((t) => ({ id: t.topicId, subscription: t.subscription })) },
  };
};

/** Contact types (docs/wire-compatibility.md §8.1) from the contact's stream. */
export const contactWebhookEvents: WebhookEventCategory = {
  streamCategory: "contact",
  types: ["contact.created", "contact.updated", "contact.deleted", "contact.topics.updated"],
  payloads: {
    ContactCreated: contactPayload("contact.created", (e) => (e.data as Data<"ContactCreated">).createdAt),
    ContactUpdated: contactPayload("contact.updated", (e) => (e.data as Data<"ContactUpdated">).updatedAt),
    ContactTopicsUpdated: topicsUpdated,
  },
};

/**
 * `contact.deleted`, from the erasure's own stream: the contact's stream is gone with everything it said
 * about the person, so the payload holds ids only. Putting the address back in would keep it, in the
 * stored delivery, after the erasure that was asked for.
 */
export const contactErasureWebhookEvents: WebhookEventCategory = {
  streamCategory: "contacterasure",
  types: [],
  produces: ["contact.deleted"],
  payloads: {
    ContactErased: (event) => {
      const data = event.data as ContactErased["data"];
      const at = isoTime(data.erasedAt);
      return {
        type: "contact.deleted",
        created_at: at,
        data: { id: data.contactId, audience_id: data.segmentIds[0] ?? null, segment_ids: data.segmentIds, updated_at: at, deleted: true },
      };
    },
  },
};
