import { createHash, randomUUID } from "node:crypto";
import { v4, validate, version } from "uuid";

/** A fresh random id (uuid v4). */
export function newId(): string {
  return v4();
}

/**
 * A fresh id that sorts by when it was made (uuid v7, RFC 9562: the first 48 bits are the Unix time in
 * milliseconds, the rest random), for rows written in the order they are made: an index of them grows at
 * its right edge instead of at random pages (the request logs, docs/scaling.md §3).
 */
export function timeOrderedId(now = Date.now()): string {
  const random = randomUUID();
  const time = now.toString(16).padStart(12, "0");
  // randomUUID's 15th character is its version (4); the variant and the 74 random bits after it stay.
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15)}`;
}

/**
 * Tidings' namespace for name-based ids. Deterministic ids are what make saga effects idempotent: the
 * same cause always yields the same id, so a redelivered message appends nothing new (docs/architecture.md §1).
 */
export const TIDINGS_NAMESPACE = "6f0c2d4e-8f57-4c1b-9a0e-3b6a1f2e9d71";

const namespaceBytes = Buffer.from(TIDINGS_NAMESPACE.replaceAll("-", ""), "hex");

/**
 * A uuid v5 derived from the given parts, stable across processes and restarts: RFC 9562's name-based
 * SHA-1 id, the same as uuid's `v5(parts joined by U+001F, TIDINGS_NAMESPACE)` (a test holds it to that),
 * hashed here with node's crypto because the sagas derive one per effect and uuid's spends most of its
 * time turning the name into bytes.
 */
export function deterministicId(...parts: string[]): string {
  const hash = createHash("sha1").update(namespaceBytes).update(parts.join("\u001f"), "utf8").digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.toString("hex", 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export function isUuid(text: string): boolean {
  return validate(text) && [1, 4, 5, 7].includes(version(text));
}

/**
 * The email a broadcast sends to one contact: the same id however often the fan-out runs, so a restarted
 * or redelivered fan-out finds the email it already queued instead of queueing another.
 */
export function broadcastEmailId(broadcastId: string, contactId: string): string {
  return deterministicId("broadcast-email", broadcastId, contactId);
}
