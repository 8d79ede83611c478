import type { Config } from "@tidings/core";
import type { ContentKind } from "@tidings/privacy";

/** What expires: each kind of content key, and the request log's bodies, which no key seals. */
export type RetentionKind = ContentKind | "request-log-bodies";

/** Milliseconds each kind is kept; null: for ever. */
export type Retention = Record<RetentionKind, number | null>;

/** The RETENTION_* settings (README, "Settings"). */
export const retentionOf = (config: Config): Retention => ({
  email: config.RETENTION_EMAIL_CONTENT,
  inbound: config.RETENTION_INBOUND_MESSAGES,
  webhook: config.RETENTION_WEBHOOK_PAYLOADS,
  event: config.RETENTION_EVENT_PAYLOADS,
  import: config.RETENTION_IMPORT_FILES,
  "request-log-bodies": config.RETENTION_REQUEST_LOG_BODIES,
});
