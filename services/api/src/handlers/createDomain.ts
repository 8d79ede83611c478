import { formatTimestamp, newId, TidingsError, type Clock, type Config } from "@tidings/core";
import { commandRunner, decideCreate, release, reserve } from "@tidings/commands";
import {
  DEFAULT_CAPABILITIES,
  DEFAULT_REGION,
  DEFAULT_RETURN_PATH,
  DEFAULT_TLS,
  DEFAULT_TRACKING_SUBDOMAIN,
  domainDecider,
  domainStream,
  type Capabilities,
  type DomainCommand,
  type DomainEvent,
  type DomainSettings,
  type DomainSettingsInput,
  type RecordTargets,
} from "@tidings/domain";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";
import { generateDkimKey } from "@tidings/mail";
import { domainHolding, domainNameStream, nameClaimCheck } from "../lookups/domainStreams.js";

const run = commandRunner(domainStream, domainDecider);

export type DomainDeps = { store: EventStore; clock: Clock; config: Config; secret: string | undefined };

export interface CreateDomainInput {
  name: string;
  region?: string | undefined;
  tls?: DomainSettings["tls"] | undefined;
  capabilities?: Partial<Capabilities> | undefined;
  openTracking?: boolean | undefined;
  clickTracking?: boolean | undefined;
  trackingSubdomain?: string | undefined;
  customReturnPath?: string | undefined;
}

export interface CreatedDomain {
  id: string;
  /** What was recorded, for the 201 body: it does not wait on the read model. */
  created: Extract<DomainEvent, { type: "DomainCreated" }>["data"];
  position?: Position;
}

/** Where a new domain's records point: this install's settings. */
export const recordTargets = (config: Config): RecordTargets => ({
  dkimSelector: config.DKIM_SELECTOR,
  mailHost: config.MAIL_HOST,
  spfInclude: config.SPF_INCLUDE,
  inboundHost: config.INBOUND_HOST,
  trackingHost: config.TRACKING_HOST,
});

/** The settings a create command carries, defaults filled in; the decider checks them. */
export function settingsOf(input: Omit<CreateDomainInput, "name">): DomainSettingsInput {
  return {
    region: input.region ?? DEFAULT_REGION,
    tls: input.tls ?? DEFAULT_TLS,
    capabilities: { ...DEFAULT_CAPABILITIES, ...input.capabilities },
    openTracking: input.openTracking ?? false,
    clickTracking: input.clickTracking ?? false,
    trackingSubdomain: input.trackingSubdomain ?? DEFAULT_TRACKING_SUBDOMAIN,
    customReturnPath: input.customReturnPath ?? DEFAULT_RETURN_PATH,
  };
}

export function sealingSecret(deps: Pick<DomainDeps, "secret">): string {
  if (!deps.secret) throw new Error("no TIDINGS_SECRET to seal DKIM keys with: pass the runtime's secret to createApiServices");
  return deps.secret;
}

/**
 * Registers a domain for the team: validated, a fresh sealed DKIM key, and its name reserved across all
 * teams. A name another team holds is refused with 403, pointing at claims (docs/wire-compatibility.md §6.5).
 */
export async function createDomain(
  deps: DomainDeps,
  teamId: string,
  input: CreateDomainInput,
  metadata: EventMetadata,
  /** Given by a caller that must create the same resource when it runs again (a resumed migration). */
  domainId: string = newId(),
): Promise<CreatedDomain> {
  const targets = recordTargets(deps.config);
  const unkeyed: DomainCommand & { type: "CreateDomain" } = {
    type: "CreateDomain",
    domainId,
    teamId,
    name: input.name,
    settings: settingsOf(input),
    targets,
    dkim: { selector: targets.dkimSelector, publicKey: "", sealedPrivateKey: "" },
    now: formatTimestamp(deps.clock.now()),
  };
  // Refuse bad input before generating a key (RSA takes a while) and before reserving the name, so a
  // rejected create never holds one.
  decideCreate(domainDecider, unkeyed);
  const command = { ...unkeyed, dkim: { ...unkeyed.dkim, ...(await generateDkimKey(sealingSecret(deps))) } };
  const created = (decideCreate(domainDecider, command)[0] as Extract<DomainEvent, { type: "DomainCreated" }>).data;
  const name = created.name;
  await reserveDomainName(deps, teamId, name, domainId, metadata);
  try {
    return { ...(await run(deps.store, domainId, command, metadata)), created };
  } catch (error) {
    await release(deps.store, domainNameStream(name), domainId, metadata);
    throw error;
  }
}

async function reserveDomainName(deps: DomainDeps, teamId: string, name: string, domainId: string, metadata: EventMetadata): Promise<void> {
  const claim = await reserve(
    deps.store,
    domainNameStream(name),
    domainId,
    metadata,
    nameClaimCheck(deps.store, name, () => deps.clock.now()),
  );
  if (claim.won) return;
  const holder = await domainHolding(deps.store, name);
  if (holder?.teamId === teamId) throw new TidingsError("domain_name_taken", `The domain \`${name}\` is already registered by your team.`);
  throw new TidingsError(
    "domain_name_taken",
    `The domain \`${name}\` is registered by another team. To take it over, prove you control it with a claim: POST /domains/claim.`,
  );
}
