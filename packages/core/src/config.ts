import type { z } from "zod";
import { settings } from "./settings.js";

type Settings = typeof settings;
type Raw = { [K in keyof Settings]: z.output<Settings[K]["schema"]> };

export type Mode = "embedded" | "server";

type RecordTargetSettings = "MAIL_HOST" | "SPF_INCLUDE" | "INBOUND_HOST" | "TRACKING_HOST" | "TRACKING_BASE_URL";

export interface Config extends Omit<Raw, "PUBLIC_URL" | "TIDINGS_ALLOW_UNVERIFIED_FROM" | RecordTargetSettings> {
  PUBLIC_URL: string;
  MAIL_HOST: string;
  SPF_INCLUDE: string;
  INBOUND_HOST: string;
  TRACKING_HOST: string;
  /** The base of tracked links for every domain; null: each domain's own `https://<tracking_subdomain>.<domain>`. */
  TRACKING_BASE_URL: string | null;
  TIDINGS_ALLOW_UNVERIFIED_FROM: boolean;
  mode: Mode;
  eventStoreKind: "pglite" | "postgres" | "esdb";
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/**
 * Parses the environment. Throws a ConfigError whose message is one line naming the variable and what
 * it accepts: that line is all an operator sees when start-up stops.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(settings)) {
    const value = env[name] === "" ? undefined : env[name];
    const parsed = (setting.schema as z.ZodType).safeParse(value);
    if (!parsed.success) {
      const shown = value === undefined ? "nothing" : JSON.stringify(name.includes("SECRET") || name.includes("TOKEN") ? "…" : value);
      throw new ConfigError(`${name} must be ${setting.accepts}; got ${shown}`);
    }
    raw[name] = parsed.data;
  }
  const r = raw as Raw;
  const eventStoreKind = !r.EVENTSTORE_URL ? "pglite" : /^postgres(ql)?:/.test(r.EVENTSTORE_URL) ? "postgres" : "esdb";
  const mode: Mode = eventStoreKind === "pglite" ? "embedded" : "server";
  const databaseUrl = r.DATABASE_URL ?? (eventStoreKind === "postgres" ? r.EVENTSTORE_URL : undefined);

  if (mode === "server" && !databaseUrl) {
    throw new ConfigError(`DATABASE_URL must be ${settings.DATABASE_URL.accepts}; got nothing while EVENTSTORE_URL is esdb`);
  }
  if (mode === "embedded" && r.DATABASE_URL) {
    throw new ConfigError("DATABASE_URL must be unset in embedded mode (EVENTSTORE_URL unset); set EVENTSTORE_URL too for server mode");
  }
  if (mode === "server" && !r.TIDINGS_SECRET) {
    throw new ConfigError(`TIDINGS_SECRET must be ${settings.TIDINGS_SECRET.accepts}; got nothing in server mode`);
  }
  if (r.MAIL_TRANSPORT === "smtp" && !r.SMTP_URL) {
    throw new ConfigError(`SMTP_URL must be ${settings.SMTP_URL.accepts}; got nothing`);
  }
  if ((r.INBOUND_TLS_CERT === undefined) !== (r.INBOUND_TLS_KEY === undefined)) {
    const missing = r.INBOUND_TLS_CERT === undefined ? "INBOUND_TLS_CERT" : "INBOUND_TLS_KEY";
    throw new ConfigError(`${missing} must be ${settings[missing].accepts}; got nothing while the other is set`);
  }
  if ((r.SUBMISSION_TLS_CERT === undefined) !== (r.SUBMISSION_TLS_KEY === undefined)) {
    const missing = r.SUBMISSION_TLS_CERT === undefined ? "SUBMISSION_TLS_CERT" : "SUBMISSION_TLS_KEY";
    throw new ConfigError(`${missing} must be ${settings[missing].accepts}; got nothing while the other is set`);
  }
  if (r.SUBMISSION_SMTPS_PORT !== undefined && r.SUBMISSION_TLS_CERT === undefined) {
    throw new ConfigError(
      `SUBMISSION_TLS_CERT must be ${settings.SUBMISSION_TLS_CERT.accepts}; got nothing while SUBMISSION_SMTPS_PORT is set`,
    );
  }
  if (r.SUBMISSION_SMTPS_PORT !== undefined && r.SUBMISSION_SMTP_PORT === undefined) {
    throw new ConfigError(
      `SUBMISSION_SMTP_PORT must be ${settings.SUBMISSION_SMTP_PORT.accepts}; got nothing while SUBMISSION_SMTPS_PORT is set`,
    );
  }
  const publicUrl = (r.PUBLIC_URL ?? `http://localhost:${r.PORT}`).replace(/\/+$/, "");
  const publicHost = new URL(publicUrl).hostname;
  return {
    ...r,
    DATABASE_URL: databaseUrl,
    PUBLIC_URL: publicUrl,
    MAIL_HOST: r.MAIL_HOST ?? publicHost,
    SPF_INCLUDE: r.SPF_INCLUDE ?? `_spf.${publicHost}`,
    INBOUND_HOST: r.INBOUND_HOST ?? publicHost,
    TRACKING_HOST: r.TRACKING_HOST ?? publicHost,
    TRACKING_BASE_URL:
      r.TRACKING_BASE_URL === "subdomain" ? null : r.TRACKING_BASE_URL === "public" ? publicUrl : r.TRACKING_BASE_URL.replace(/\/+$/, ""),
    TIDINGS_ALLOW_UNVERIFIED_FROM: r.TIDINGS_ALLOW_UNVERIFIED_FROM ?? mode === "embedded",
    mode,
    eventStoreKind,
  };
}
