import { deterministicId, formatTimestamp, newId, TidingsError, type Clock } from "@tidings/core";
import { apiKeyDecider, apiKeyStream, type ApiKeyPermission } from "@tidings/domain";
import { handleCommand } from "@tidings/commands";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";
import { hashApiKeyToken, newApiKeyToken } from "../apiKeyTokens.js";
import { findDomain } from "../lookups/domainStreams.js";

export interface CreateApiKeyInput {
  teamId: string;
  name: string;
  permission: ApiKeyPermission;
  domainId: string | null;
  /**
   * A token chosen by the operator (TIDINGS_BOOTSTRAP_TOKEN). Its key id derives from the token, so every
   * instance that creates it creates the same key, once. Omitted: a fresh random token.
   */
  token?: string;
}

export interface CreatedApiKey {
  id: string;
  /** The only time the token exists outside the client: it is not stored. */
  token: string;
  /** Undefined when the key already existed (a repeated create of a given token). */
  position?: Position;
}

/** The id of the key a given token makes: the same on every instance, so creating it twice creates it once. */
export const apiKeyIdForToken = (token: string) => deterministicId("apikey-token", hashApiKeyToken(token));

export async function createApiKey(
  deps: { store: EventStore; clock: Clock },
  input: CreateApiKeyInput,
  metadata: EventMetadata,
): Promise<CreatedApiKey> {
  if (input.domainId !== null && !(await findDomain(deps.store, input.teamId, input.domainId)))
    throw new TidingsError("validation_error", "The `domain_id` field must name a domain of your team.");
  const token = input.token ?? newApiKeyToken();
  const tokenHash = hashApiKeyToken(token);
  const apiKeyId = input.token ? apiKeyIdForToken(input.token) : newId();
  const { position } = await handleCommand({
    store: deps.store,
    streamId: apiKeyStream(apiKeyId),
    decider: apiKeyDecider,
    command: {
      type: "CreateApiKey",
      apiKeyId,
      teamId: input.teamId,
      name: input.name,
      permission: input.permission,
      domainId: input.domainId,
      tokenHash,
      now: formatTimestamp(deps.clock.now()),
    },
    metadata,
  });
  return { id: apiKeyId, token, ...(position ? { position } : {}) };
}
