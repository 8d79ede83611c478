import { createHmac } from "node:crypto";
import { deriveKey } from "@tidings/core";
import { parseMailbox } from "@tidings/domain";

/**
 * A data subject's keyed hash (docs/privacy.md): HMAC-SHA256 of the team and the lower-cased address, under
 * a key derived from TIDINGS_SECRET, cut to 128 bits. It names a subject in the key table, in
 * `SubjectErased` and on a suppression kept after erasure, without the address: unlike a plain hash,
 * nobody without the secret can confirm a guessed address against it.
 */
export type SubjectHasher = (teamId: string, address: string) => string;

export function createSubjectHasher(secret: string): SubjectHasher {
  const key = deriveKey(secret, "subject-hash");
  // Each append that seals names its recipients again (the queued email, then each outcome), and a
  // mailbox's parse and HMAC cost more than the rest of sealing its address: the hashes met lately are kept.
  const known = new Map<string, string>();
  return (teamId, address) => {
    const name = `${teamId}\u001f${address}`;
    let hash = known.get(name);
    if (hash === undefined) {
      hash = createHmac("sha256", key)
        .update(`${teamId}\u001f${subjectAddress(address)}`, "utf8")
        .digest()
        .subarray(0, 16)
        .toString("base64url");
      if (known.size >= 10_000) known.clear();
      known.set(name, hash);
    }
    return hash;
  };
}

/** The address a mailbox (`Ada <ada@example.com>`) or a bare address names, lower-cased: one subject, however written. */
export function subjectAddress(mailbox: string): string {
  return (parseMailbox(mailbox)?.address ?? mailbox).trim().toLowerCase();
}

/** What an erased subject's values read as, after `erased:`: the start of the keyed hash, stable and not reversible. */
export const subjectTag = (subjectHash: string) => subjectHash.slice(0, 10);

/** The subject a contact's own content is linked to (its automation runs, its custom events), whatever its address. */
export const contactSubject = (contactId: string) => `contact:${contactId}`;
