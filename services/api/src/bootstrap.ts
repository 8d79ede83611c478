import type { Config, Logger } from "@tidings/core";
import { operationMetadata, reservationStream, reserve } from "@tidings/commands";
import type { EventStore } from "@tidings/eventstore";
import { newApiKeyToken } from "./apiKeyTokens.js";
import { apiKeyIdForToken, createApiKey } from "./handlers/createApiKey.js";
import { ensureTeam } from "./handlers/ensureTeam.js";
import type { ApiServices } from "./services.js";

/** The team the first key belongs to; `tidings keys create --team default` adds keys to it. */
export const BOOTSTRAP_TEAM_NAME = "default";

export interface BootstrapResult {
  teamId: string;
  apiKeyId: string;
  token: string;
  /** `generated`: print it, once; it exists nowhere else. `environment`: TIDINGS_BOOTSTRAP_TOKEN, known to the operator. */
  source: "generated" | "environment";
}

export interface BootstrapOptions {
  /**
   * This process runs the projector too (`--role all`, embedded defaults): then the key is returned only
   * once the `api_keys` read model holds it, however long a loaded first start takes, so that the key
   * printed, and a `/health` that answers after it, mean a key that works. Otherwise the projector runs
   * elsewhere, may not be up yet, and the wait is the read-your-writes one.
   */
  projectorInProcess?: boolean;
  logger?: Logger;
}

/** Claimed by the one bootstrap that creates the first key, whichever instance runs it. */
const firstKeyClaim = reservationStream("global", "bootstrap", "first-api-key");

/**
 * Creates the first team and a full-access key when the event store holds no API key yet: with the
 * token in TIDINGS_BOOTSTRAP_TOKEN when it is set, else (embedded mode only) with a generated token
 * that the caller prints. Returns undefined when there was nothing to do.
 *
 * Safe when several instances start at once: the key's id derives from its token, so instances given the
 * same token create the same key once, and a claim appended with expected revision "no stream" lets one
 * bootstrap win against instances given other tokens. Should a process die between the claim and the
 * key, no later start bootstraps again; `tidings keys create` then makes the first key.
 */
export async function bootstrapFirstKey(
  services: ApiServices,
  config: Pick<Config, "mode" | "TIDINGS_BOOTSTRAP_TOKEN">,
  options: BootstrapOptions = {},
): Promise<BootstrapResult | undefined> {
  const given = config.TIDINGS_BOOTSTRAP_TOKEN;
  if (!given && config.mode !== "embedded") return undefined;
  if (await anyApiKeyExists(services.store)) return undefined;

  const token = given ?? newApiKeyToken();
  const metadata = operationMetadata("system:bootstrap", services.clock);
  const claim = await reserve(services.store, firstKeyClaim, apiKeyIdForToken(token), metadata);
  if (!claim.won) return undefined;

  const { teamId, position: teamPosition } = await ensureTeam(services, BOOTSTRAP_TEAM_NAME, metadata);

  const key = await createApiKey(
    services,
    { teamId, name: "bootstrap", permission: "full_access", domainId: null, token },
    { ...metadata, teamId },
  );
  if (options.projectorInProcess) {
    while (!(await services.catchUp(["api_keys"]))) {
      options.logger?.warn("the first API key is created; waiting for the api_keys read model to hold it before serving");
    }
  } else {
    const last = key.position ?? teamPosition;
    if (last) await services.waitFor(last);
  }
  return { teamId, apiKeyId: key.id, token, source: given ? "environment" : "generated" };
}

/** The event store, not a read model, answers: it is the truth even before any projector has run. */
async function anyApiKeyExists(store: EventStore): Promise<boolean> {
  const events = await store.readAll({ filter: { streamCategory: ["apikey"] }, maxCount: 1 });
  return events.length > 0;
}
