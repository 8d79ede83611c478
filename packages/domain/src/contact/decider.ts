import { DomainError, type Decider } from "../decider.js";
import { createdBefore, isLiveFor } from "../teamResource.js";
import type { ContactPropertyValue } from "../contactproperty/events.js";
import type { ContactErased, ContactEvent, ContactTopicChoice, TopicSubscription } from "./events.js";
import {
  applyPropertyChanges,
  checkContactEmail,
  checkContactName,
  checkContactProperties,
  normalContactEmail,
  type PropertyTypes,
} from "./rules.js";

export const contactStream = (contactId: string) => `contact-${contactId}`;
/** Where a contact's erasure is recorded; it outlives the contact's own stream. */
export const contactErasureStream = (contactId: string) => `contacterasure-${contactId}`;

export interface ContactFields {
  firstName: string | null;
  lastName: string | null;
  unsubscribed: boolean;
}

export type ContactCommand =
  | {
      type: "CreateContact";
      contactId: string;
      teamId: string;
      email: string;
      fields: ContactFields;
      properties: Record<string, ContactPropertyValue | null>;
      propertyTypes: PropertyTypes;
      segmentIds: string[];
      topics: ContactTopicChoice[];
      now: string;
    }
  | {
      type: "UpdateContact";
      teamId: string;
      changes: Partial<ContactFields>;
      properties: Record<string, ContactPropertyValue | null>;
      propertyTypes: PropertyTypes;
      now: string;
    }
  | { type: "AddContactToSegment"; teamId: string; segmentId: string; now: string }
  | { type: "RemoveContactFromSegment"; teamId: string; segmentId: string; now: string }
  | { type: "UpdateContactTopics"; teamId: string; topics: ContactTopicChoice[]; now: string };

export interface ContactRecord extends ContactFields {
  contactId: string;
  teamId: string;
  email: string;
  properties: Record<string, ContactPropertyValue>;
  segmentIds: string[];
  /** The contact's own choices by topic id; a topic absent here follows its default. */
  topics: Record<string, TopicSubscription>;
}

export type ContactState = { status: "none" } | (ContactRecord & { status: "active" });
export type LiveContact = ContactRecord & { status: "active" };

const notFound = () => new DomainError("not_found", "Contact not found");

const sameFields = (
  a: ContactFields & { properties: Record<string, unknown> },
  b: ContactFields & { properties: Record<string, unknown> },
) =>
  a.firstName === b.firstName &&
  a.lastName === b.lastName &&
  a.unsubscribed === b.unsubscribed &&
  Object.keys(a.properties).length === Object.keys(b.properties).length &&
  Object.entries(a.properties).every(([key, value]) => b.properties[key] === value);

function checkFields(fields: Partial<ContactFields>): DomainError | undefined {
  return (
    (fields.firstName !== undefined ? checkContactName("first_name", fields.firstName) : undefined) ??
    (fields.lastName !== undefined ? checkContactName("last_name", fields.lastName) : undefined)
  );
}

/** Later choices for the same topic win, as if applied one after another. */
const lastChoicePerTopic = (topics: ContactTopicChoice[]) => [...new Map(topics.map((t) => [t.topicId, t])).values()];

export const contactDecider: Decider<ContactCommand, ContactEvent, ContactState> = {
  initialState: { status: "none" },
  evolve(state, event) {
    switch (event.type) {
      case "ContactCreated": {
        const { contactId, teamId, email, firstName, lastName, unsubscribed, properties, segmentIds, topics } = event.data;
        return {
          status: "active",
          contactId,
          teamId,
          email,
          firstName,
          lastName,
          unsubscribed,
          properties,
          segmentIds,
          topics: Object.fromEntries(topics.map((t) => [t.topicId, t.subscription])),
        };
      }
      case "ContactUpdated": {
        if (state.status === "none") return state;
        const { firstName, lastName, unsubscribed, properties } = event.data;
        return { ...state, firstName, lastName, unsubscribed, properties };
      }
      case "ContactAddedToSegment":
        return state.status === "none" ? state : { ...state, segmentIds: [...state.segmentIds, event.data.segmentId] };
      case "ContactRemovedFromSegment":
        return state.status === "none" ? state : { ...state, segmentIds: state.segmentIds.filter((id) => id !== event.data.segmentId) };
      case "ContactTopicsUpdated":
        return state.status === "none"
          ? state
          : { ...state, topics: { ...state.topics, ...Object.fromEntries(event.data.topics.map((t) => [t.topicId, t.subscription])) } };
    }
  },
  decide(command, state) {
    if (command.type === "CreateContact") {
      if (state.status !== "none")
        return createdBefore(state.teamId === command.teamId && state.email === normalContactEmail(command.email), "Contact");
      const invalid =
        checkContactEmail(command.email) ??
        checkFields(command.fields) ??
        checkContactProperties(command.properties, command.propertyTypes);
      if (invalid) return invalid;
      const { contactId, teamId, fields, now } = command;
      return [
        {
          type: "ContactCreated",
          data: {
            contactId,
            teamId,
            email: normalContactEmail(command.email),
            ...fields,
            properties: applyPropertyChanges({}, command.properties),
            segmentIds: [...new Set(command.segmentIds)],
            topics: lastChoicePerTopic(command.topics),
            createdAt: now,
          },
        },
      ];
    }
    if (!isLiveFor(state, command.teamId)) return notFound();
    const { contactId, teamId } = state;
    switch (command.type) {
      case "UpdateContact": {
        const invalid = checkFields(command.changes) ?? checkContactProperties(command.properties, command.propertyTypes);
        if (invalid) return invalid;
        const next = {
          firstName: command.changes.firstName !== undefined ? command.changes.firstName : state.firstName,
          lastName: command.changes.lastName !== undefined ? command.changes.lastName : state.lastName,
          unsubscribed: command.changes.unsubscribed ?? state.unsubscribed,
          properties: applyPropertyChanges(state.properties, command.properties),
        };
        if (sameFields(next, state)) return [];
        return [{ type: "ContactUpdated", data: { contactId, teamId, email: state.email, ...next, updatedAt: command.now } }];
      }
      case "AddContactToSegment":
        if (state.segmentIds.includes(command.segmentId)) return [];
        return [{ type: "ContactAddedToSegment", data: { contactId, teamId, segmentId: command.segmentId, addedAt: command.now } }];
      case "RemoveContactFromSegment":
        if (!state.segmentIds.includes(command.segmentId)) return [];
        return [{ type: "ContactRemovedFromSegment", data: { contactId, teamId, segmentId: command.segmentId, removedAt: command.now } }];
      case "UpdateContactTopics": {
        const changed = lastChoicePerTopic(command.topics).filter((t) => state.topics[t.topicId] !== t.subscription);
        if (changed.length === 0) return [];
        return [{ type: "ContactTopicsUpdated", data: { contactId, teamId, topics: changed, updatedAt: command.now } }];
      }
    }
  },
};

/** The erasure record of a live contact: ids only, so nothing of the person outlives its stream. */
export function decideEraseContact(state: ContactState, teamId: string, now: string): ContactErased | DomainError {
  if (!isLiveFor(state, teamId)) return notFound();
  return {
    type: "ContactErased",
    data: { contactId: state.contactId, teamId, segmentIds: state.segmentIds, topicIds: Object.keys(state.topics), erasedAt: now },
  };
}
