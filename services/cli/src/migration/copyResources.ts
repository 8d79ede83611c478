import { systemClock, TidingsError, type Config } from "@tidings/core";
import { DomainRejection, loadState } from "@tidings/commands";
import { createContact, createContactProperty, createSegment, createTopic } from "@tidings/audience";
import { createDomain, createTemplate, createWebhook, publishTemplate, updateWebhook } from "@tidings/api";
import {
  contactPropertyStream,
  contactStream,
  domainDecider,
  domainStream,
  segmentStream,
  templateStream,
  topicStream,
  webhookDecider,
  webhookStream,
  type ContactPropertyValue,
  type MigratedKind,
  type MigrationMapping,
} from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";
import { dnsChanges, type DnsChange } from "./dnsChanges.js";
import { domainInput, templateContent } from "./sourceFields.js";
import type { SourceApi } from "./sourceApi.js";
import {
  sourceLists,
  type SourceContact,
  type SourceContactTopic,
  type SourceDomain,
  type SourceProperty,
  type SourceSegment,
  type SourceTemplate,
  type SourceTopic,
  type SourceWebhook,
} from "./sourceResources.js";

/** What the copy writes with: the local stores, as the api's handlers take them. */
export interface CopyDeps {
  store: EventStore;
  config: Config;
  secret: string;
}

export interface CopyContext {
  deps: CopyDeps;
  api: SourceApi;
  teamId: string;
  metadata: EventMetadata;
  /** Source id → local id of what earlier runs copied; the copy adds to it as it goes. */
  mapping: MigrationMapping;
  /** The local id a source resource is (or will be) copied to. */
  localId(kind: MigratedKind, sourceId: string): string;
  /** Records one copied resource in the migration's stream. */
  recordCopied(kind: MigratedKind, sourceId: string, localId: string): Promise<void>;
  progress(line: string): void;
}

/** A webhook copied in this run, with its new signing secret (null when an interrupted run created it: read it with GET /webhooks/:id). */
export interface CopiedWebhook {
  sourceId: string;
  id: string;
  endpoint: string;
  signingSecret: string | null;
}

export interface CopiedDomain {
  sourceId: string;
  id: string;
  name: string;
  records: DnsChange[];
}

/** A resource this installation refuses as its API would (a taken email, key, alias or name): the run stops there. */
export class CopyRefused extends Error {
  override readonly name = "CopyRefused";
}

export interface CopyOutcome {
  copied: Record<MigratedKind, number>;
  /** Already copied by an earlier run. */
  skipped: Record<MigratedKind, number>;
  webhooks: CopiedWebhook[];
  domains: CopiedDomain[];
  warnings: string[];
}

const zero = (): Record<MigratedKind, number> => ({
  contact_property: 0,
  topic: 0,
  segment: 0,
  contact: 0,
  template: 0,
  webhook: 0,
  domain: 0,
});

/** Whether a stream has events: a create under a derived id that an interrupted run already made. */
const exists = async (store: EventStore, streamId: string) => (await store.readStream(streamId, { maxCount: 1 })).length > 0;

/**
 * Copies the source kind by kind, each kind after those it may name (properties and topics and segments
 * before contacts), reading each kind just before writing it. What the mapping holds is skipped without
 * a request beyond the list; the rest is created under its derived id unless it exists, then recorded.
 */
export async function copyResources(ctx: CopyContext): Promise<CopyOutcome> {
  const { deps, api, teamId, metadata } = ctx;
  const handlerDeps = { ...deps, clock: systemClock };
  const outcome: CopyOutcome = { copied: zero(), skipped: zero(), webhooks: [], domains: [], warnings: [] };

  const each = async <T extends { id: string }>(
    kind: MigratedKind,
    items: T[],
    label: (item: T) => string,
    copy: (item: T, localId: string) => Promise<boolean>,
  ) => {
    for (const [index, item] of items.entries()) {
      if (ctx.mapping[kind][item.id] !== undefined) {
        outcome.skipped[kind]++;
        continue;
      }
      const localId = ctx.localId(kind, item.id);
      try {
        if (!(await copy(item, localId))) continue;
      } catch (error) {
        if (error instanceof TidingsError || error instanceof DomainRejection)
          throw new CopyRefused(`the ${kind.replace("_", " ")} ${label(item)} (${item.id}) was refused: ${error.message}`);
        throw error;
      }
      await ctx.recordCopied(kind, item.id, localId);
      ctx.mapping[kind][item.id] = localId;
      outcome.copied[kind]++;
      ctx.progress(`copied ${kind.replace("_", " ")} ${index + 1}/${items.length}: ${label(item)}`);
    }
  };
  const mapped = (kind: MigratedKind, sourceId: string, what: string): string | undefined => {
    const id = ctx.mapping[kind][sourceId];
    if (id === undefined) outcome.warnings.push(`${what} names the ${kind} ${sourceId}, which was not copied: left out`);
    return id;
  };

  await each(
    "contact_property",
    await api.list<SourceProperty>(sourceLists.contact_property),
    (p) => p.key,
    async (p, id) => {
      if (!(await exists(deps.store, contactPropertyStream(id))))
        await createContactProperty(
          handlerDeps,
          teamId,
          { key: p.key, type: p.type, fallbackValue: p.fallback_value ?? null },
          metadata,
          id,
        );
      return true;
    },
  );

  await each(
    "topic",
    await api.list<SourceTopic>(sourceLists.topic),
    (t) => t.name,
    async (t, id) => {
      if (!(await exists(deps.store, topicStream(id)))) {
        const fields = { name: t.name, description: t.description ?? null, visibility: t.visibility ?? "private" };
        await createTopic(handlerDeps, teamId, fields, t.default_subscription, metadata, id);
      }
      return true;
    },
  );

  await each(
    "segment",
    await api.list<SourceSegment>(sourceLists.segment),
    (s) => s.name,
    async (s, id) => {
      if (!(await exists(deps.store, segmentStream(id)))) await createSegment(handlerDeps, teamId, s.name, metadata, id);
      return true;
    },
  );

  await each(
    "contact",
    await api.list<SourceContact>(sourceLists.contact),
    (c) => c.email,
    async (listed, id) => {
      if (await exists(deps.store, contactStream(id))) return true;
      const contact = await api.get<SourceContact>(`/contacts/${listed.id}`);
      if (!contact) return false;
      const segments = await api.list<SourceSegment>(`/contacts/${listed.id}/segments`);
      const topics = await api.list<SourceContactTopic>(`/contacts/${listed.id}/topics`);
      const what = `the contact ${contact.email}`;
      const segmentIds = segments.flatMap((s) => mapped("segment", s.id, what) ?? []);
      const topicChoices = topics.flatMap((t) => {
        const topicId = mapped("topic", t.id, what);
        return topicId ? [{ topicId, subscription: t.subscription }] : [];
      });
      const fields = {
        firstName: contact.first_name ?? null,
        lastName: contact.last_name ?? null,
        unsubscribed: contact.unsubscribed ?? false,
      };
      await createContact(
        handlerDeps,
        teamId,
        { email: contact.email, fields, properties: propertyValues(contact), segmentIds, topics: topicChoices },
        metadata,
        id,
      );
      return true;
    },
  );

  await each(
    "template",
    await api.list<SourceTemplate>(sourceLists.template),
    (t) => t.name,
    async (listed, id) => {
      if (!(await exists(deps.store, templateStream(id)))) {
        const template = await api.get<SourceTemplate>(`/templates/${listed.id}`);
        if (!template) return false;
        await createTemplate(handlerDeps, teamId, templateContent(template), metadata, id);
      }
      // Publishing a published draft changes nothing, so an interrupted run's template is published here too.
      if (listed.status === "published") await publishTemplate(handlerDeps, teamId, id, metadata);
      return true;
    },
  );

  await each(
    "webhook",
    await api.list<SourceWebhook>(sourceLists.webhook),
    (w) => w.endpoint,
    async (w, id) => {
      let signingSecret: string | null = null;
      if (!(await exists(deps.store, webhookStream(id))))
        signingSecret = (await createWebhook(handlerDeps, teamId, { endpoint: w.endpoint, events: w.events ?? [] }, metadata, id))
          .signingSecret;
      const state = await loadState(deps.store, webhookStream(id), webhookDecider);
      if (w.status === "disabled" && state.status === "enabled")
        await updateWebhook(handlerDeps, teamId, id, { status: "disabled" }, metadata);
      outcome.webhooks.push({ sourceId: w.id, id, endpoint: w.endpoint, signingSecret });
      return true;
    },
  );

  await each(
    "domain",
    await api.list<SourceDomain>(sourceLists.domain),
    (d) => d.name,
    async (listed, id) => {
      const domain = await api.get<SourceDomain>(`/domains/${listed.id}`);
      if (!domain) return false;
      if (!(await exists(deps.store, domainStream(id)))) await createDomain(handlerDeps, teamId, domainInput(domain), metadata, id);
      const state = await loadState(deps.store, domainStream(id), domainDecider);
      const local = state.status === "none" ? [] : state.records;
      const source = [...(domain.records ?? []), ...(domain.recommended_records ?? [])];
      outcome.domains.push({ sourceId: domain.id, id, name: domain.name, records: dnsChanges(domain.name, source, local) });
      return true;
    },
  );

  return outcome;
}

/** A contact's property values as a create takes them, from either shape a source may show. */
function propertyValues(contact: SourceContact): Record<string, ContactPropertyValue | null> {
  const values: Record<string, ContactPropertyValue | null> = {};
  for (const [key, shown] of Object.entries(contact.properties ?? {})) {
    const value = shown !== null && typeof shown === "object" ? shown.value : shown;
    if (value !== null && value !== undefined) values[key] = value;
  }
  return values;
}
