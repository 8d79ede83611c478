import { deterministicId } from "@tidings/core";
import type { EventToAppend } from "@tidings/eventstore";
import {
  mergedContentRequests,
  subjectKeyName,
  type ContentKeyRequest,
  type ContentKind,
  type DataKeys,
  type SubjectKeyRequest,
} from "./dataKeys.js";
import { sealValue } from "./envelope.js";
import { sealingPlanOf } from "./personalData.js";
import type { Sealing } from "./sealingPlan.js";
import { subjectTag, type SubjectHasher } from "./subjectHash.js";

export interface SealingDeps {
  keys: DataKeys;
  hashSubject: SubjectHasher;
}

/** The content key of a stream's content of one kind: the same on every append, so a retry finds it again. */
export const contentKeyId = (kind: ContentKind, streamId: string) => deterministicId("content-key", kind, streamId);

/** The team an event belongs to: its metadata's, or the data's own `teamId`. Keys and hashes are per team. */
function teamOf(event: EventToAppend): string {
  const data = event.data as { teamId?: unknown } | null;
  return event.metadata?.teamId ?? (typeof data?.teamId === "string" ? data.teamId : "");
}

const absent = (value: unknown) => value === null || value === undefined;

/**
 * Seals the personal values of events about to be appended to one stream (docs/privacy.md). Each plan runs
 * twice: once to learn which keys it needs, fetched or made in one round trip, then to seal.
 */
export async function sealEvents(deps: SealingDeps, streamId: string, events: EventToAppend[]): Promise<EventToAppend[]> {
  const planned = events.map((event) => ({ event, plan: sealingPlanOf(event.type), teamId: teamOf(event) }));
  // A plan runs twice and names a recipient in several fields: each address is hashed once per call.
  const hashes = new Map<string, string>();
  const hashOf = (teamId: string, address: string) => {
    const name = `${teamId}\u001f${address}`;
    let hash = hashes.get(name);
    if (hash === undefined) hashes.set(name, (hash = deps.hashSubject(teamId, address)));
    return hash;
  };
  if (planned.every((p) => p.plan === undefined)) return events;
  const subjects: SubjectKeyRequest[] = [];
  const content: ContentKeyRequest[] = [];
  for (const { event, plan, teamId } of planned) {
    if (!plan) continue;
    const hash = (address: string) => hashOf(teamId, address);
    plan(event.data as never, {
      address: (mailbox) => void subjects.push({ teamId, subjectHash: hash(mailbox) }),
      of: (address, value) => void (absent(value) || subjects.push({ teamId, subjectHash: hash(address) })),
      content: (kind, about, value) =>
        void (absent(value) || content.push({ id: contentKeyId(kind, streamId), teamId, kind, subjects: about.map(hash) })),
      hash,
    });
  }
  const keys = await deps.keys.ensure(subjects, mergedContentRequests(content));
  return planned.map(({ event, plan, teamId }) => {
    if (!plan) return event;
    const hash = (address: string) => hashOf(teamId, address);
    const underSubject = (address: string, value: unknown) => {
      const subjectHash = hash(address);
      const key = keys.subjects.get(subjectKeyName(teamId, subjectHash))!;
      return sealValue(key.id, key.key, subjectTag(subjectHash), value);
    };
    const sealing: Sealing = {
      address: (mailbox) => underSubject(mailbox, mailbox),
      of: (address, value) => (absent(value) ? value : underSubject(address, value)),
      content: (kind, _about, value) => {
        if (absent(value)) return value;
        const key = keys.content.get(contentKeyId(kind, streamId))!;
        return sealValue(key.id, key.key, key.id.slice(0, 8), value);
      },
      hash,
    };
    return { ...event, data: plan(event.data as never, sealing) };
  });
}
