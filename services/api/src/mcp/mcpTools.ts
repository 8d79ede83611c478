/**
 * The MCP server's tools (docs/wire-compatibility.md §6.24): each one is a route of the API, called in this
 * process with the caller's key, so every check, limit, idempotency rule and team boundary is the route's
 * own. A tool's input is read from the route's schemas (`toolInputs.ts`), never written twice.
 */

/** What a tool does to the team's data, as its MCP annotations say. */
export type ToolEffect = "read" | "write" | "idempotentWrite" | "destructive" | "idempotentDestructive";

export interface McpTool {
  name: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** The route's path exactly as it is registered, parameters and all. */
  path: string;
  description: string;
  effect: ToolEffect;
  /** A `sending_access` key lists and calls only these: the routes the auth plugin lets it call. */
  sending?: boolean;
  /** Its result carries text someone else wrote: it is marked as untrusted data (`untrustedContent.ts`). */
  untrusted?: boolean;
  /** It reaches outside the team's own data: mail to other people's mailboxes, requests to webhook endpoints. */
  openWorld?: boolean;
  /** The input key that holds a body that is not an object (a batch's array). */
  bodyKey?: string;
  /** Body fields the route leaves optional that this tool requires (a schedule needs its time). */
  requires?: readonly string[];
}

export const mcpTools: readonly McpTool[] = [
  {
    name: "send_email",
    openWorld: true,
    method: "POST",
    path: "/emails",
    effect: "destructive",
    sending: true,
    description: "Destructive: sends an email to real recipients, which cannot be taken back once delivered. Returns its id.",
  },
  {
    name: "send_batch_emails",
    openWorld: true,
    method: "POST",
    path: "/emails/batch",
    effect: "destructive",
    sending: true,
    bodyKey: "emails",
    description: "Destructive: sends up to 100 emails at once, which cannot be taken back once delivered. Returns their ids.",
  },
  {
    name: "list_emails",
    method: "GET",
    path: "/emails",
    effect: "read",
    untrusted: true,
    description: "Lists the team's sent emails, newest first, with their last event.",
  },
  {
    name: "get_email",
    method: "GET",
    path: "/emails/:id",
    effect: "read",
    untrusted: true,
    description: "Retrieves one sent email: addresses, subject, bodies, tags and last event.",
  },
  {
    name: "get_email_timeline",
    method: "GET",
    path: "/audit/resources/:id",
    effect: "read",
    untrusted: true,
    description:
      "The events that name a resource, oldest first: for an email id, its timeline (queued, sent, delivered, bounced, opened, clicked…). Needs a full-access key.",
  },
  {
    name: "cancel_scheduled_email",
    method: "POST",
    path: "/emails/:id/cancel",
    effect: "destructive",
    description: "Destructive: cancels a scheduled email, which then is never sent.",
  },
  {
    name: "list_received_emails",
    method: "GET",
    path: "/emails/receiving",
    effect: "read",
    untrusted: true,
    description: "Lists the emails the team's domains received, newest first.",
  },
  {
    name: "get_received_email",
    method: "GET",
    path: "/emails/receiving/:id",
    effect: "read",
    untrusted: true,
    description: "Retrieves one received email with its headers and bodies, as its sender wrote them.",
  },
  { name: "list_domains", method: "GET", path: "/domains", effect: "read", description: "Lists the team's domains and their status." },
  {
    name: "create_domain",
    method: "POST",
    path: "/domains",
    effect: "write",
    description: "Adds a sending domain; the result lists the DNS records (DKIM, SPF, MX) to publish before verifying it.",
  },
  {
    name: "get_domain",
    method: "GET",
    path: "/domains/:id",
    effect: "read",
    description: "Retrieves a domain with its DNS records and the verification status of each.",
  },
  {
    name: "verify_domain",
    openWorld: true,
    method: "POST",
    path: "/domains/:id/verify",
    effect: "idempotentWrite",
    description: "Checks the domain's DNS records again; read the domain afterwards to see the outcome.",
  },
  {
    name: "update_domain",
    method: "PATCH",
    path: "/domains/:id",
    effect: "idempotentWrite",
    description: "Changes a domain's tracking and TLS settings.",
  },
  {
    name: "delete_domain",
    method: "DELETE",
    path: "/domains/:id",
    effect: "idempotentDestructive",
    description: "Destructive: removes a domain; the team can no longer send from it.",
  },
  {
    name: "list_contacts",
    method: "GET",
    path: "/contacts",
    effect: "read",
    untrusted: true,
    description: "Lists the team's contacts, optionally those of one segment.",
  },
  {
    name: "create_contact",
    method: "POST",
    path: "/contacts",
    effect: "write",
    description: "Creates a contact, optionally in segments, with topic subscriptions and property values.",
  },
  {
    name: "get_contact",
    method: "GET",
    path: "/contacts/:idOrEmail",
    effect: "read",
    untrusted: true,
    description: "Retrieves a contact by id or email address, with its property values.",
  },
  {
    name: "update_contact",
    method: "PATCH",
    path: "/contacts/:idOrEmail",
    effect: "idempotentWrite",
    description: "Changes a contact's name, property values or unsubscribed flag.",
  },
  {
    name: "delete_contact",
    method: "DELETE",
    path: "/contacts/:idOrEmail",
    effect: "idempotentDestructive",
    description: "Destructive: deletes a contact and its memberships.",
  },
  {
    name: "list_contact_segments",
    method: "GET",
    path: "/contacts/:idOrEmail/segments",
    effect: "read",
    description: "Lists the segments a contact belongs to.",
  },
  {
    name: "add_contact_to_segment",
    method: "POST",
    path: "/contacts/:idOrEmail/segments/:segmentId",
    effect: "idempotentWrite",
    description: "Adds a contact to a segment.",
  },
  {
    name: "remove_contact_from_segment",
    method: "DELETE",
    path: "/contacts/:idOrEmail/segments/:segmentId",
    effect: "idempotentDestructive",
    description: "Destructive: removes a contact from a segment; later broadcasts to it skip the contact.",
  },
  {
    name: "get_contact_topics",
    method: "GET",
    path: "/contacts/:idOrEmail/topics",
    effect: "read",
    description: "Lists a contact's subscription to each topic.",
  },
  {
    name: "update_contact_topics",
    method: "PATCH",
    path: "/contacts/:idOrEmail/topics",
    effect: "idempotentWrite",
    bodyKey: "topics",
    description: "Opts a contact in or out of topics.",
  },
  { name: "list_segments", method: "GET", path: "/segments", effect: "read", description: "Lists the team's segments." },
  { name: "create_segment", method: "POST", path: "/segments", effect: "write", description: "Creates a segment of contacts." },
  {
    name: "delete_segment",
    method: "DELETE",
    path: "/segments/:id",
    effect: "idempotentDestructive",
    description: "Destructive: deletes a segment; its contacts stay.",
  },
  {
    name: "list_segment_contacts",
    method: "GET",
    path: "/segments/:id/contacts",
    effect: "read",
    untrusted: true,
    description: "Lists the contacts of a segment.",
  },
  { name: "list_topics", method: "GET", path: "/topics", effect: "read", description: "Lists the team's topics." },
  {
    name: "create_topic",
    method: "POST",
    path: "/topics",
    effect: "write",
    description: "Creates a topic contacts subscribe to, opt-in or opt-out by default.",
  },
  {
    name: "update_topic",
    method: "PATCH",
    path: "/topics/:id",
    effect: "idempotentWrite",
    description: "Changes a topic's name, description or visibility.",
  },
  {
    name: "delete_topic",
    method: "DELETE",
    path: "/topics/:id",
    effect: "idempotentDestructive",
    description: "Destructive: deletes a topic and every contact's subscription to it.",
  },
  {
    name: "list_contact_properties",
    method: "GET",
    path: "/contact-properties",
    effect: "read",
    description: "Lists the contact properties (custom fields) and their fallback values.",
  },
  {
    name: "create_contact_property",
    method: "POST",
    path: "/contact-properties",
    effect: "write",
    description: "Creates a contact property that contacts can hold and templates can use.",
  },
  {
    name: "delete_contact_property",
    method: "DELETE",
    path: "/contact-properties/:id",
    effect: "idempotentDestructive",
    description: "Destructive: deletes a contact property and every contact's value of it.",
  },
  { name: "list_broadcasts", method: "GET", path: "/broadcasts", effect: "read", description: "Lists the team's broadcasts." },
  {
    name: "create_broadcast",
    openWorld: true,
    method: "POST",
    path: "/broadcasts",
    effect: "write",
    description:
      "Creates a draft broadcast to a segment. Setting `send: true` makes it destructive: it then sends at once (or at `scheduled_at`) to every eligible contact; prefer creating a draft and calling send_broadcast.",
  },
  {
    name: "get_broadcast",
    method: "GET",
    path: "/broadcasts/:id",
    effect: "read",
    untrusted: true,
    description:
      "A broadcast as stored: sender, subject, segment, topic, HTML and text with their placeholders not yet filled, and its status and counts.",
  },
  {
    name: "preview_broadcast",
    method: "GET",
    path: "/broadcasts/:id/preview",
    effect: "read",
    untrusted: true,
    description:
      "A broadcast as one contact of its segment (`contact`: an id or email) would receive it: subject, HTML and text with the contact's fields and the properties' fallbacks filled in, as the send fills them.",
  },
  {
    name: "update_broadcast",
    method: "PATCH",
    path: "/broadcasts/:id",
    effect: "idempotentWrite",
    description: "Changes a draft broadcast.",
  },
  {
    name: "send_broadcast",
    openWorld: true,
    method: "POST",
    path: "/broadcasts/:id/send",
    effect: "destructive",
    description: "Destructive: sends a draft broadcast now to every eligible contact of its segment. It cannot be unsent.",
  },
  {
    name: "schedule_broadcast",
    openWorld: true,
    method: "POST",
    path: "/broadcasts/:id/send",
    effect: "destructive",
    requires: ["scheduled_at"],
    description:
      "Destructive: schedules a draft broadcast to be sent at `scheduled_at` (ISO 8601, or a phrase such as `in 1 hour`) to every eligible contact of its segment; until then cancel_broadcast returns it to draft.",
  },
  {
    name: "cancel_broadcast",
    method: "POST",
    path: "/broadcasts/:id/cancel",
    effect: "destructive",
    description:
      "Destructive: cancels a broadcast. A scheduled one returns to draft; a queued or sending one stops for good, and contacts not yet sent to get nothing.",
  },
  {
    name: "delete_broadcast",
    method: "DELETE",
    path: "/broadcasts/:id",
    effect: "idempotentDestructive",
    description: "Destructive: deletes a draft broadcast.",
  },
  {
    name: "list_broadcast_recipients",
    method: "GET",
    path: "/broadcasts/:id/recipients",
    effect: "read",
    untrusted: true,
    description: "Lists whom a broadcast was sent to, with each recipient's email and its status.",
  },
  { name: "list_templates", method: "GET", path: "/templates", effect: "read", description: "Lists the team's templates." },
  {
    name: "create_template",
    method: "POST",
    path: "/templates",
    effect: "write",
    description: "Creates a draft template with variables; publish it before sending with it.",
  },
  {
    name: "get_template",
    method: "GET",
    path: "/templates/:idOrAlias",
    effect: "read",
    untrusted: true,
    description: "Retrieves a template by id or alias: its draft and published content and variables.",
  },
  {
    name: "update_template",
    method: "PATCH",
    path: "/templates/:idOrAlias",
    effect: "idempotentWrite",
    description: "Changes a template's draft; emails use it once published.",
  },
  {
    name: "publish_template",
    method: "POST",
    path: "/templates/:idOrAlias/publish",
    effect: "idempotentWrite",
    description: "Publishes a template's draft: every later send with the template uses it.",
  },
  {
    name: "delete_template",
    method: "DELETE",
    path: "/templates/:idOrAlias",
    effect: "idempotentDestructive",
    description: "Destructive: deletes a template; sends that name it then fail.",
  },
  { name: "list_webhooks", method: "GET", path: "/webhooks", effect: "read", description: "Lists the team's webhook endpoints." },
  {
    name: "create_webhook",
    method: "POST",
    path: "/webhooks",
    effect: "write",
    description: "Creates a webhook endpoint for the given event types; the result holds its signing secret, shown only once.",
  },
  {
    name: "update_webhook",
    method: "PATCH",
    path: "/webhooks/:id",
    effect: "idempotentWrite",
    description: "Changes a webhook's URL, event types or status.",
  },
  {
    name: "delete_webhook",
    method: "DELETE",
    path: "/webhooks/:id",
    effect: "idempotentDestructive",
    description: "Destructive: deletes a webhook endpoint; its pending deliveries are dropped.",
  },
  {
    name: "list_webhook_deliveries",
    method: "GET",
    path: "/webhooks/:id/events",
    effect: "read",
    untrusted: true,
    description: "Lists a webhook's deliveries: each event sent to it, its status and the endpoint's last answer.",
  },
  {
    name: "replay_webhook_delivery",
    openWorld: true,
    method: "POST",
    path: "/webhooks/:id/events/:eventId/replay",
    effect: "write",
    description: "Delivers one of a webhook's events again.",
  },
  {
    name: "list_suppressions",
    method: "GET",
    path: "/suppressions",
    effect: "read",
    description: "Lists the addresses the team never sends to, and why (bounce, complaint, manual).",
  },
  {
    name: "add_suppression",
    method: "POST",
    path: "/suppressions",
    effect: "idempotentWrite",
    description: "Adds an address to the suppression list: no email goes to it afterwards.",
  },
  {
    name: "remove_suppression",
    method: "DELETE",
    path: "/suppressions/:idOrEmail",
    effect: "idempotentDestructive",
    description:
      "Destructive: removes an address from the suppression list, so that mail goes to it again, even after a bounce or complaint.",
  },
  {
    name: "list_logs",
    method: "GET",
    path: "/logs",
    effect: "read",
    untrusted: true,
    description: "Lists the team's API request log, newest first.",
  },
  {
    name: "get_log",
    method: "GET",
    path: "/logs/:id",
    effect: "read",
    untrusted: true,
    description: "Retrieves one API request with its request and response bodies.",
  },
];
