import { v4, v5, validate, version } from "uuid";

/** A fresh random id (uuid v4). */
export function newId(): string {
  return v4();
}

/**
 * Tidings' namespace for name-based ids. Deterministic ids are what make saga effects idempotent: the
 * same cause always yields the same id, so a redelivered message appends nothing new (DESIGN §1).
 */
export const TIDINGS_NAMESPACE = "6f0c2d4e-8f57-4c1b-9a0e-3b6a1f2e9d71";

/** A uuid v5 derived from the given parts, stable across processes and restarts. */
export function deterministicId(...parts: string[]): string {
  return v5(parts.join("\u001f"), TIDINGS_NAMESPACE);
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
