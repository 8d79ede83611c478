/**
 * The key table's port (docs/privacy.md, "Keys"). A subject key seals one person's values in one team; a
 * period key is one kind of content's key for a stretch of time, and is shredded when that kind's
 * retention has passed the stretch's end. Content keys are derived from both (keyRefs.ts), never stored.
 */
import type { Config } from "@tidings/core";

export const contentKinds = ["email", "inbound", "webhook", "event", "import"] as const;
export type ContentKind = (typeof contentKinds)[number];

export interface SubjectKeyRequest {
  teamId: string;
  subjectHash: string;
}

export interface DataKey {
  id: string;
  key: Buffer;
}

export interface ErasedKeys {
  subjectKeys: number;
  /** The ids of the keys shredded: what `countSealedEvents` looks for. */
  keyIds: string[];
}

export interface DataKeys {
  /** Finds or makes the subjects' keys, by `subjectKeyName`: one round trip when every one has a key already, two when some need one. */
  subjects(requests: SubjectKeyRequest[]): Promise<Map<string, DataKey>>;
  /** The key of a kind's current period, made when the period begins. */
  period(kind: ContentKind): Promise<DataKey>;
  /** The keys that still exist among these ids; a missing one was shredded. */
  open(ids: string[]): Promise<Map<string, Buffer>>;
  /** Shreds the subject's key. Repeating it finds nothing more. */
  eraseSubject(teamId: string, subjectHash: string): Promise<ErasedKeys>;
  /** Shreds the period keys of a kind whose period ended at or before `before` (`retentionCut`): retention. */
  expire(kind: ContentKind, before: Date): Promise<number>;
}

/** Milliseconds each kind of content is kept (null: for ever): the RETENTION_* settings (README, "Settings"). */
export const contentRetentionOf = (config: Config): Record<ContentKind, number | null> => ({
  email: config.RETENTION_EMAIL_CONTENT,
  inbound: config.RETENTION_INBOUND_MESSAGES,
  webhook: config.RETENTION_WEBHOOK_PAYLOADS,
  event: config.RETENTION_EVENT_PAYLOADS,
  import: config.RETENTION_IMPORT_FILES,
});

export const subjectKeyName = (teamId: string, subjectHash: string) => `${teamId}/${subjectHash}`;

/**
 * How long one period key of a kind seals new content: a 24th of the kind's retention, between a second
 * and a day. Content outlives its retention by at most one period (and the sweep's interval), never less.
 */
export function periodMsOf(retentionMs: number | null | undefined): number {
  const day = 86_400_000;
  if (retentionMs === null || retentionMs === undefined) return day;
  return Math.min(day, Math.max(1_000, Math.floor(retentionMs / 24)));
}

/**
 * Where retention cuts a kind kept `retentionMs`, at `now`: a period boundary, so the periods ending at or
 * before it (`DataKeys.expire`) hold exactly the content recorded before it, which the read models lose too.
 */
export function retentionCut(retentionMs: number, now: number): Date {
  const period = periodMsOf(retentionMs);
  return new Date(Math.floor((now - retentionMs) / period) * period);
}
