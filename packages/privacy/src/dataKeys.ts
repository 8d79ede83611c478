/**
 * The key table's port (docs/privacy.md). A subject key seals one person's values in one team; a content
 * key seals one stream's content (an email's body, a webhook's payload), is linked to the subjects it is
 * about, and is shredded when any of them is erased or when its kind's retention runs out.
 */
export const contentKinds = ["email", "inbound", "webhook", "event", "import"] as const;
export type ContentKind = (typeof contentKinds)[number];

export interface SubjectKeyRequest {
  teamId: string;
  subjectHash: string;
}

export interface ContentKeyRequest {
  /** Deterministic for its stream, so a retried append finds the key the first attempt made. */
  id: string;
  teamId: string;
  kind: ContentKind;
  /** Subject hashes this content is about: erasing any of them shreds it. */
  subjects: string[];
}

export interface DataKey {
  id: string;
  key: Buffer;
}

export interface EnsuredKeys {
  /** By `subjectKeyName(teamId, subjectHash)`. */
  subjects: Map<string, DataKey>;
  /** By content key id. */
  content: Map<string, DataKey>;
}

export interface ErasedKeys {
  subjectKeys: number;
  contentKeys: number;
  /** The ids of the keys shredded: what `countSealedEvents` looks for. */
  keyIds: string[];
}

export interface DataKeys {
  /** Finds or makes every key asked for, in one round trip where it can. */
  ensure(subjects: SubjectKeyRequest[], content: ContentKeyRequest[]): Promise<EnsuredKeys>;
  /** The keys that still exist among these ids; a missing one was shredded. */
  open(ids: string[]): Promise<Map<string, Buffer>>;
  /** Shreds the subject's key and every content key linked to it. Repeating it finds nothing more. */
  eraseSubject(teamId: string, subjectHash: string): Promise<ErasedKeys>;
  /** Shreds the content keys of a kind made before `before`: retention. */
  expire(kind: ContentKind, before: Date): Promise<number>;
}

export const subjectKeyName = (teamId: string, subjectHash: string) => `${teamId}/${subjectHash}`;

/** One request per content key, with every subject any of the requests linked to it. */
export function mergedContentRequests(requests: ContentKeyRequest[]): ContentKeyRequest[] {
  const merged = new Map<string, ContentKeyRequest>();
  for (const request of requests) {
    const seen = merged.get(request.id);
    merged.set(request.id, seen ? { ...seen, subjects: [...new Set([...seen.subjects, ...request.subjects])] } : request);
  }
  return [...merged.values()];
}
