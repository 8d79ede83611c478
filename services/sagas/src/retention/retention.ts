import type { Config } from "@tidings/core";
import { contentRetentionOf, type ContentKind } from "@tidings/privacy";

/** What expires: each kind of content, and the request log's bodies, which no key seals. */
export type RetentionKind = ContentKind | "request-log-bodies";

/** Milliseconds each kind is kept; null: for ever. */
export type Retention = Record<RetentionKind, number | null>;

/** The RETENTION_* settings (README, "Settings"). */
export const retentionOf = (config: Config): Retention => ({
  ...contentRetentionOf(config),
  "request-log-bodies": config.RETENTION_REQUEST_LOG_BODIES,
});
