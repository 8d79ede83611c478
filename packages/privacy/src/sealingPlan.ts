import type { ContentKind } from "./dataKeys.js";

/**
 * What a sealing plan may do with an event's data (docs/privacy.md). Each call returns what the stored
 * event holds in the value's place; null and absent values are returned as they are, having nothing to hide.
 */
export interface Sealing {
  /** An address or mailbox, sealed under its own subject's key. */
  address(mailbox: string): unknown;
  /** Any value that is the subject's, whose address is given (a contact's names and properties). */
  of(address: string, value: unknown): unknown;
  /** Content of a kind about these subjects: unreadable once any of them is erased, or once its retention ends. */
  content(kind: ContentKind, about: readonly string[], value: unknown): unknown;
  /**
   * Content that is also about whoever the stream's earlier content of the kind was about: an open of an
   * email is its recipients', a webhook's reply the payload's subjects', an automation step the contact's.
   */
  streamContent(kind: ContentKind, about: readonly string[], value: unknown): unknown;
  /** The address's keyed hash, in clear: what outlives an erasure (a suppression). */
  hash(address: string): string;
}

/** Turns one event's data into the data the store keeps. Pure: it runs twice, once to learn the keys it needs. */
export type SealingPlan = (data: never, seal: Sealing) => unknown;
