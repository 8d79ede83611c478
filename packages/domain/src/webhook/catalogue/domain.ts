import type { DnsRecord, DomainEvent } from "../../domain/events.js";
import { webhookRecords } from "../../domain/records.js";
import { isoTime, type PayloadBuilder, type SourceEvent, type WebhookEventCategory } from "./category.js";

type Data<Type extends DomainEvent["type"]> = Extract<DomainEvent, { type: Type }>["data"];

/** What GET shows of a domain's records and status: every event that changes them carries both. */
interface Shown {
  records: DnsRecord[];
  status: string;
}

const shownBy = (event: SourceEvent): Shown | undefined => {
  const data = event.data as Partial<Shown>;
  return data.records && data.status ? { records: data.records, status: data.status } : undefined;
};

/** The records and status as of the last event in `history` that showed them. */
function lastShown(history: SourceEvent[]): Shown | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const shown = shownBy(history[i]!);
    if (shown) return shown;
  }
  return undefined;
}

const sameShown = (a: Shown | undefined, b: Shown | undefined) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The domain as of the event (docs/wire-compatibility.md §8.2): `{id, name, status, created_at, region, records}`, from its
 * stream up to it. `shown`: the records and status the payload holds, which a deletion takes from before it.
 */
function domainPayload(type: string, at: string, history: SourceEvent[], shown: Shown | undefined) {
  const created = history.find((event) => event.type === "DomainCreated")?.data as Data<"DomainCreated"> | undefined;
  if (!created || !shown) return null;
  const updated = history.filter((event) => event.type === "DomainUpdated").at(-1)?.data as Data<"DomainUpdated"> | undefined;
  return {
    type,
    created_at: isoTime(at),
    data: {
      id: created.domainId,
      name: created.name,
      status: shown.status,
      created_at: isoTime(created.createdAt),
      region: (updated ?? created).region,
      records: webhookRecords(shown.records),
    },
  };
}

/**
 * `domain.updated` for an event that changed what the domain shows. A DNS check runs every few minutes
 * while a domain is verified, and daily after: only one that moved a status is news to a receiver. The
 * DKIM key made with the domain changes nothing shown, so a create is one `domain.created`.
 */
function updatedWhenShownChanged(at: (event: SourceEvent) => string): PayloadBuilder {
  return (event, history) => {
    const shown = shownBy(event);
    if (sameShown(shown, lastShown(history.slice(0, -1)))) return null;
    return domainPayload("domain.updated", at(event), history, shown);
  };
}

/** Domain types (docs/wire-compatibility.md §8.1) from the domain's stream: created, changed by PATCH or a check, deleted. */
export const domainWebhookEvents: WebhookEventCategory = {
  streamCategory: "domain",
  types: ["domain.created", "domain.updated", "domain.deleted"],
  payloads: {
    DomainCreated: (event, history) =>
      domainPayload("domain.created", (event.data as Data<"DomainCreated">).createdAt, history, shownBy(event)),
    DomainUpdated: (event, history) =>
      domainPayload("domain.updated", (event.data as Data<"DomainUpdated">).updatedAt, history, shownBy(event)),
    DomainDkimKeyGenerated: updatedWhenShownChanged((event) => (event.data as Data<"DomainDkimKeyGenerated">).generatedAt),
    DomainVerificationStarted: updatedWhenShownChanged((event) => (event.data as Data<"DomainVerificationStarted">).startedAt),
    DomainRecordsChecked: updatedWhenShownChanged((event) => (event.data as Data<"DomainRecordsChecked">).checkedAt),
    DomainVerificationFailed: updatedWhenShownChanged((event) => (event.data as Data<"DomainVerificationFailed">).failedAt),
    DomainDeleted: (event, history) =>
      domainPayload("domain.deleted", (event.data as Data<"DomainDeleted">).deletedAt, history, lastShown(history.slice(0, -1))),
  },
};
