import { createHmac } from "node:crypto";
import type { ContentKind } from "./dataKeys.js";

/**
 * What a sealed group names as its key (docs/privacy.md, "Keys"). A person's own values are sealed under
 * their subject key: `s:<key id>`. Content is sealed under a key derived from its retention period's key
 * and the key of every subject it is about: `c:<kind>:<period key id>:<subject key ids, sorted>`. The
 * derived key is never stored, so sealing content writes no key row: deleting any one of the keys it
 * is derived from (an erasure, or the period's expiry) makes it unrecoverable.
 */
export const subjectRef = (keyId: string) => `s:${keyId}`;

export function contentRef(kind: ContentKind, periodKeyId: string, subjectKeyIds: Iterable<string>): string {
  return `c:${kind}:${periodKeyId}:${[...new Set(subjectKeyIds)].sort().join(",")}`;
}

export type ParsedRef = { subject: string } | { kind: ContentKind; period: string; subjects: string[] };

export function parseRef(ref: string): ParsedRef | undefined {
  if (ref.startsWith("s:")) return { subject: ref.slice(2) };
  const [tag, kind, period, subjects] = ref.split(":");
  if (tag !== "c" || !kind || !period || subjects === undefined) return undefined;
  return { kind: kind as ContentKind, period, subjects: subjects === "" ? [] : subjects.split(",") };
}

/** Every stored key a reference needs: each must still exist for its values to open. */
export function keyIdsOf(ref: ParsedRef): string[] {
  return "subject" in ref ? [ref.subject] : [ref.period, ...ref.subjects];
}

/** The content key: HMAC-SHA256 under the period key over the reference and each subject key, in the reference's order. */
export function deriveContentKey(ref: string, period: Buffer, subjects: Buffer[]): Buffer {
  const hmac = createHmac("sha256", period).update(ref, "utf8");
  for (const key of subjects) hmac.update(key);
  return hmac.digest();
}
