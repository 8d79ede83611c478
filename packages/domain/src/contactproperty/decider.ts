import { DomainError, type Decider } from "../decider.js";
import { createdBefore, isLiveFor, markDeleted, noResource, type LiveResource, type ResourceState } from "../teamResource.js";
import type { ContactPropertyEvent, ContactPropertyType, ContactPropertyValue } from "./events.js";
import { checkContactPropertyKey, checkFallbackValue } from "./rules.js";

export const contactPropertyStream = (propertyId: string) => `contactproperty-${propertyId}`;

export type ContactPropertyCommand =
  | {
      type: "CreateContactProperty";
      propertyId: string;
      teamId: string;
      key: string;
      propertyType: ContactPropertyType;
      fallbackValue: ContactPropertyValue | null;
      now: string;
    }
  | { type: "UpdateContactProperty"; teamId: string; fallbackValue: ContactPropertyValue | null; now: string }
  | { type: "DeleteContactProperty"; teamId: string; now: string };

export interface ContactPropertyRecord {
  propertyId: string;
  teamId: string;
  key: string;
  type: ContactPropertyType;
  fallbackValue: ContactPropertyValue | null;
}

export type ContactPropertyState = ResourceState<ContactPropertyRecord>;
export type LiveContactProperty = LiveResource<ContactPropertyRecord>;

const notFound = () => new DomainError("not_found", "Contact property not found");

export const contactPropertyDecider: Decider<ContactPropertyCommand, ContactPropertyEvent, ContactPropertyState> = {
  initialState: noResource,
  evolve(state, event) {
    switch (event.type) {
      case "ContactPropertyCreated": {
        const { propertyId, teamId, key, type, fallbackValue } = event.data;
        return { status: "active", propertyId, teamId, key, type, fallbackValue };
      }
      case "ContactPropertyUpdated":
        return state.status === "none" ? state : { ...state, fallbackValue: event.data.fallbackValue };
      case "ContactPropertyDeleted":
        return markDeleted(state);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case "CreateContactProperty": {
        if (state.status !== "none") return createdBefore(state.teamId === command.teamId && state.key === command.key, "Contact property");
        const invalid = checkContactPropertyKey(command.key) ?? checkFallbackValue(command.propertyType, command.fallbackValue);
        if (invalid) return invalid;
        const { propertyId, teamId, key, propertyType, fallbackValue, now } = command;
        return [{ type: "ContactPropertyCreated", data: { propertyId, teamId, key, type: propertyType, fallbackValue, createdAt: now } }];
      }
      case "UpdateContactProperty": {
        if (!isLiveFor(state, command.teamId)) return notFound();
        const invalid = checkFallbackValue(state.type, command.fallbackValue);
        if (invalid) return invalid;
        if (state.fallbackValue === command.fallbackValue) return [];
        return [
          {
            type: "ContactPropertyUpdated",
            data: { propertyId: state.propertyId, fallbackValue: command.fallbackValue, updatedAt: command.now },
          },
        ];
      }
      case "DeleteContactProperty":
        if (!isLiveFor(state, command.teamId)) return notFound();
        return [
          {
            type: "ContactPropertyDeleted",
            data: { propertyId: state.propertyId, teamId: state.teamId, key: state.key, deletedAt: command.now },
          },
        ];
    }
  },
};
