import { deterministicId, formatTimestamp, type Clock } from "@tidings/core";
import { subjectErasureStream } from "@tidings/domain";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";
import { contactSubject, subjectTag, type DataKeys, type SubjectHasher } from "@tidings/privacy";

export interface ErasureDeps {
  store: EventStore;
  clock: Clock;
  keys: DataKeys;
  hashSubject: SubjectHasher;
}

/** What one subject's erasure did: the copies outside the event store are reached by the caller, with `tag`. */
export interface SubjectErasure {
  address: string;
  subjectHash: string;
  /** What the subject's values now read as, after `erased:`. */
  tag: string;
  subjectKeys: number;
  /** The ids of the keys shredded. */
  keyIds: string[];
  /** Where `SubjectErased` was recorded: read models that reach it have applied every event before the shredding. */
  position: Position;
}

/**
 * Erases a data subject of a team (docs/privacy.md): shreds the subject's key (and, for a contact, the key
 * of the contact's own content), so everything sealed under or derived from it is unreadable, then records `SubjectErased` by keyed hash.
 * Shredding goes first: a crash between the two leaves the data unreadable, and a retry finds no key and
 * records the erasure. The event's id comes from the request, so a retried request records it once.
 */
export async function eraseSubject(
  deps: ErasureDeps,
  teamId: string,
  subject: { address: string; contactId?: string },
  metadata: EventMetadata,
  /** Names this erasure among the subject's, so a retry records it once: the request's id unless given. */
  erasureKey?: string,
): Promise<SubjectErasure> {
  const subjectHash = deps.hashSubject(teamId, subject.address);
  const reached = await deps.keys.eraseSubject(teamId, subjectHash);
  if (subject.contactId) {
    const own = await deps.keys.eraseSubject(teamId, deps.hashSubject(teamId, contactSubject(subject.contactId)));
    reached.subjectKeys += own.subjectKeys;
    reached.keyIds.push(...own.keyIds);
  }
  const stream = subjectErasureStream(deterministicId("subject", teamId, subjectHash));
  const erasedAt = formatTimestamp(deps.clock.now());
  const { position } = await deps.store.append(
    stream,
    [
      {
        id: deterministicId(stream, erasureKey ?? metadata.requestId ?? metadata.correlationId ?? erasedAt),
        type: "SubjectErased",
        data: {
          teamId,
          subjectHash,
          orderedBy: metadata.actor ?? "unknown",
          contactId: subject.contactId ?? null,
          subjectKeys: reached.subjectKeys,
          erasedAt,
        },
        metadata,
      },
    ],
    "any",
  );
  return { address: subject.address, subjectHash, tag: subjectTag(subjectHash), ...reached, position };
}
