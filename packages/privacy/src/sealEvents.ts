import { deterministicId } from "@tidings/core";
import type { EventToAppend } from "@tidings/eventstore";
import { subjectKeyName, type ContentKind, type DataKey, type SubjectKeyRequest } from "./dataKeys.js";
import { groupsField, sealGroup, shapeOf, slotOf, type SealedSlot } from "./envelope.js";
import { contentRef, subjectRef } from "./keyRefs.js";
import type { Keyring } from "./keyring.js";
import { sealingPlanOf } from "./personalData.js";
import type { Sealing } from "./sealingPlan.js";
import { subjectTag, type SubjectHasher } from "./subjectHash.js";

export interface SealingDeps {
  keyring: Keyring;
  hashSubject: SubjectHasher;
  /** The subject key ids the stream's earlier content of a kind was sealed under (`Sealing.streamContent`). */
  streamSubjects(streamId: string, kind: ContentKind): Promise<string[]>;
}

/** The tag a stream's erased content of a kind shows, in its events and in the read models' scrubbed rows. */
export const contentTag = (kind: ContentKind, streamId: string) => deterministicId("content-key", kind, streamId).slice(0, 8);

/** The team an event belongs to: its metadata's, or the data's own `teamId`. Keys and hashes are per team. */
function teamOf(event: EventToAppend): string {
  const data = event.data as { teamId?: unknown } | null;
  return event.metadata?.teamId ?? (typeof data?.teamId === "string" ? data.teamId : "");
}

const absent = (value: unknown) => value === null || value === undefined;

/**
 * Seals the personal values of events about to be appended to one stream (docs/privacy.md). Each plan runs
 * twice: once to learn which keys it needs, found or made together, then to seal, one group per key and
 * event. Once the keys are cached, sealing makes no round trip.
 */
export async function sealEvents(deps: SealingDeps, streamId: string, events: EventToAppend[]): Promise<EventToAppend[]> {
  const planned = events.map((event) => ({ event, plan: sealingPlanOf(event.type), teamId: teamOf(event) }));
  if (planned.every((p) => p.plan === undefined)) return events;
  // A plan runs twice and names a recipient in several fields: the hasher keeps what it hashed lately.
  const hashOf = deps.hashSubject;

  const subjects: SubjectKeyRequest[] = [];
  const kinds = new Set<ContentKind>();
  const streamKinds = new Set<ContentKind>();
  for (const { event, plan, teamId } of planned) {
    if (!plan) continue;
    const subject = (address: string) => void subjects.push({ teamId, subjectHash: hashOf(teamId, address) });
    const content = (kind: ContentKind, about: readonly string[], value: unknown) => {
      if (absent(value)) return;
      kinds.add(kind);
      about.forEach(subject);
    };
    plan(event.data as never, {
      address: subject,
      of: (address, value) => void (absent(value) || subject(address)),
      content,
      streamContent: (kind, about, value) => {
        content(kind, about, value);
        if (!absent(value)) streamKinds.add(kind);
      },
      hash: (address) => hashOf(teamId, address),
    });
  }
  const { keyring } = deps;
  const [subjectKeys, periods, earlier] = await Promise.all([
    keyring.keys.subjects(subjects),
    Promise.all([...kinds].map(async (kind) => [kind, await keyring.keys.period(kind)] as const)).then((p) => new Map(p)),
    Promise.all([...streamKinds].map(async (kind) => [kind, await deps.streamSubjects(streamId, kind)] as const)).then((s) => new Map(s)),
  ]);
  const earlierKeys = await keyring.keys.open([...earlier.values()].flat());
  const stored = new Map<string, Buffer>(earlierKeys);
  for (const key of [...subjectKeys.values(), ...periods.values()]) stored.set(key.id, key.key);

  // The stream's subjects by kind: its earlier events', then also those of the events this append seals first.
  const streamSubjects = new Map([...earlier].map(([kind, ids]) => [kind, new Set(ids.filter((id) => earlierKeys.has(id)))]));
  return planned.map(({ event, plan, teamId }) => {
    if (!plan) return event;
    const groups = new Map<string, { index: number; key: Buffer; values: unknown[] }>();
    const slot = (ref: string, key: Buffer | undefined, tag: string, value: unknown): SealedSlot => {
      let group = groups.get(ref);
      if (!group) groups.set(ref, (group = { index: groups.size, key: key!, values: [] }));
      group.values.push(value);
      return slotOf({ group: group.index, index: group.values.length - 1, shape: shapeOf(value), tag });
    };
    const subjectKey = (address: string): [DataKey, string] => {
      const hash = hashOf(teamId, address);
      return [subjectKeys.get(subjectKeyName(teamId, hash))!, subjectTag(hash)];
    };
    const underSubject = (address: string, value: unknown) => {
      const [key, tag] = subjectKey(address);
      return slot(subjectRef(key.id), key.key, tag, value);
    };
    const asContent = (kind: ContentKind, about: readonly string[], value: unknown, ofStream: boolean) => {
      if (absent(value)) return value;
      const ids = about.map((address) => subjectKey(address)[0].id);
      const known = streamSubjects.get(kind) ?? new Set<string>();
      streamSubjects.set(kind, known);
      if (ofStream) ids.push(...known);
      for (const id of ids) known.add(id);
      const ref = contentRef(kind, periods.get(kind)!.id, ids);
      return slot(ref, keyring.derive(ref, stored), contentTag(kind, streamId), value);
    };
    const sealing: Sealing = {
      address: (mailbox) => underSubject(mailbox, mailbox),
      of: (address, value) => (absent(value) ? value : underSubject(address, value)),
      content: (kind, about, value) => asContent(kind, about, value, false),
      streamContent: (kind, about, value) => asContent(kind, about, value, true),
      hash: (address) => hashOf(teamId, address),
    };
    const data = plan(event.data as never, sealing) as Record<string, unknown>;
    if (groups.size === 0) return { ...event, data };
    return { ...event, data: { ...data, [groupsField]: [...groups].map(([ref, group]) => sealGroup(ref, group.key, group.values)) } };
  });
}
