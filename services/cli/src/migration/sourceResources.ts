import type { MigratedKind } from "@tidings/domain";

/**
 * The source's resources as a Resend-compatible API shows them (docs/wire-compatibility.md §6): only the
 * fields a copy needs, each optional where Resend may leave it out.
 */
export interface SourceProperty {
  id: string;
  key: string;
  type: "string" | "number";
  fallback_value?: string | number | null;
}

export interface SourceTopic {
  id: string;
  name: string;
  description?: string | null;
  default_subscription: "opt_in" | "opt_out";
  visibility?: "public" | "private";
}

export interface SourceSegment {
  id: string;
  name: string;
}

export interface SourceContact {
  id: string;
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  unsubscribed?: boolean;
  /** Ours: `{ key: { type, value } }`; a plain `{ key: value }` is read too. */
  properties?: Record<string, { value: string | number | null } | string | number | null>;
}

export interface SourceContactTopic {
  id: string;
  subscription: "opt_in" | "opt_out";
}

export interface SourceTemplate {
  id: string;
  name: string;
  alias?: string | null;
  status?: "draft" | "published";
  subject?: string | null;
  html?: string;
  text?: string | null;
  from?: string | null;
  reply_to?: string[] | string | null;
  variables?: { key: string; type: "string" | "number"; fallback_value?: string | number | null }[] | null;
}

export interface SourceWebhook {
  id: string;
  endpoint: string;
  events: string[] | null;
  status?: "enabled" | "disabled";
}

export interface SourceDnsRecord {
  record: string;
  name: string;
  type: string;
  value: string;
  priority?: number;
}

export interface SourceDomain {
  id: string;
  name: string;
  region?: string;
  tls?: "opportunistic" | "enforced";
  capabilities?: { sending?: "enabled" | "disabled"; receiving?: "enabled" | "disabled" };
  open_tracking?: boolean;
  click_tracking?: boolean;
  tracking_subdomain?: string;
  custom_return_path?: string;
  records?: SourceDnsRecord[];
  recommended_records?: SourceDnsRecord[];
}

/** Where a kind's list is read. */
export const sourceLists: Record<MigratedKind, string> = {
  contact_property: "/contact-properties",
  topic: "/topics",
  segment: "/segments",
  contact: "/contacts",
  template: "/templates",
  webhook: "/webhooks",
  domain: "/domains",
};
