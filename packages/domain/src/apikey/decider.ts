import { DomainError, type Decider } from "../decider.js";
import { createdBefore, isLiveFor, markDeleted, noResource, type ResourceState } from "../teamResource.js";
import type { ApiKeyEvent, ApiKeyPermission } from "./events.js";

export const apiKeyStream = (apiKeyId: string) => `apikey-${apiKeyId}`;

export const API_KEY_NAME_MAX = 50;

export type ApiKeyCommand =
  | {
      type: "CreateApiKey";
      apiKeyId: string;
      teamId: string;
      name: string;
      permission: ApiKeyPermission;
      domainId: string | null;
      tokenHash: string;
      now: string;
    }
  | { type: "RenameApiKey"; teamId: string; name: string }
  | { type: "DeleteApiKey"; teamId: string; now: string };

export type ApiKeyState = ResourceState<{ apiKeyId: string; teamId: string; name: string; tokenHash: string }>;

const notFound = () => new DomainError("not_found", "API key not found");

function checkName(name: string): DomainError | undefined {
  if (name.trim().length === 0)
    return new DomainError("validation_error", "The `name` field must contain at least 1 character that is not a space.");
  if (name.length > API_KEY_NAME_MAX)
    return new DomainError("validation_error", `The \`name\` field must be at most ${API_KEY_NAME_MAX} characters.`);
  return undefined;
}

export const apiKeyDecider: Decider<ApiKeyCommand, ApiKeyEvent, ApiKeyState> = {
  initialState: noResource,
  evolve(state, event) {
    switch (event.type) {
      case "ApiKeyCreated": {
        const { apiKeyId, teamId, name, tokenHash } = event.data;
        return { status: "active", apiKeyId, teamId, name, tokenHash };
      }
      case "ApiKeyRenamed":
        return state.status === "none" ? state : { ...state, name: event.data.name };
      case "ApiKeyDeleted":
        return markDeleted(state);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case "CreateApiKey": {
        // The same token tells a retried create from another create reusing the id.
        if (state.status !== "none") return createdBefore(state.tokenHash === command.tokenHash, "API key");
        const invalid = checkName(command.name);
        if (invalid) return invalid;
        if (command.domainId && command.permission !== "sending_access")
          return new DomainError("validation_error", "The `domain_id` field is only allowed with `sending_access` permission.");
        const { apiKeyId, teamId, name, permission, domainId, tokenHash, now } = command;
        return [{ type: "ApiKeyCreated", data: { apiKeyId, teamId, name, permission, domainId, tokenHash, createdAt: now } }];
      }
      case "RenameApiKey": {
        if (!isLiveFor(state, command.teamId)) return notFound();
        const invalid = checkName(command.name);
        if (invalid) return invalid;
        if (state.name === command.name) return [];
        return [{ type: "ApiKeyRenamed", data: { apiKeyId: state.apiKeyId, name: command.name } }];
      }
      case "DeleteApiKey":
        if (!isLiveFor(state, command.teamId)) return notFound();
        return [{ type: "ApiKeyDeleted", data: { apiKeyId: state.apiKeyId, deletedAt: command.now } }];
    }
  },
};
