import type { CreateDomainInput } from "@tidings/api";
import type { TemplateContent } from "@tidings/domain";
import type { SourceDomain, SourceTemplate } from "./sourceResources.js";

/** A source template's latest content, as a create takes it. */
export function templateContent(t: SourceTemplate): TemplateContent {
  return {
    name: t.name,
    alias: t.alias ?? null,
    subject: t.subject ?? null,
    html: t.html ?? "",
    text: t.text ?? null,
    from: t.from ?? null,
    replyTo: t.reply_to === undefined || t.reply_to === null ? null : typeof t.reply_to === "string" ? [t.reply_to] : t.reply_to,
    variables: (t.variables ?? []).map((v) => ({ key: v.key, type: v.type, fallbackValue: v.fallback_value ?? null })),
  };
}

/** A source domain's settings, as a create takes them: what the source leaves out gets our defaults. */
export function domainInput(d: SourceDomain): CreateDomainInput {
  return {
    name: d.name,
    region: d.region,
    tls: d.tls,
    capabilities: d.capabilities,
    openTracking: d.open_tracking,
    clickTracking: d.click_tracking,
    trackingSubdomain: d.tracking_subdomain,
    customReturnPath: d.custom_return_path,
  };
}
