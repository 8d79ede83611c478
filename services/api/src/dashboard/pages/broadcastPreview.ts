import { z } from "zod";
import { personalizeBroadcast, type PersonalizedParts } from "@tidings/domain";
import { everyItem } from "../everyItem.js";
import { sharedFrameCsp, sharedFrameDocument } from "../../shares/sharedEmailPage.js";
import { withQuery } from "../apiCalls.js";
import type { Dashboard, SignedIn } from "../dashboard.js";
import { Html, html } from "../html.js";
import { errorNotice } from "../layout.js";
import { listPageSize } from "../pagination.js";
import type { BroadcastObject } from "./broadcastObject.js";
import { broadcastPath } from "./broadcasts.js";

/** The contact a page previews the broadcast for, by email. */
export const previewQuery = z.object({ contact: z.string().max(320).optional() });

interface ContactObject {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  properties: Record<string, { value: string | number }>;
}

type Preview = { ok: true; parts: PersonalizedParts } | { ok: false; status: number; message: string };

/**
 * The unsubscribe link a preview shows. The real one is signed per recipient when the email is made; a
 * preview must not carry one that works, or a click in the dashboard would unsubscribe the contact.
 */
const previewUnsubscribeUrl = "#unsubscribe-link-of-the-recipient";

/**
 * The broadcast as `email` would receive it, rendered by the broadcast saga's own `personalizeBroadcast`
 * from what the API tells of the contact and of the properties' fallbacks. Only a contact of the
 * broadcast's segment is previewed: no one else would receive it.
 */
async function personalPreview(who: SignedIn, b: BroadcastObject, email: string): Promise<Preview> {
  if (!b.segment_id) return { ok: false, status: 422, message: "The draft has no segment yet: choose one and save it." };
  const contact = await who.api.get<ContactObject>(`/contacts/${encodeURIComponent(email)}`);
  if (!contact.ok)
    return {
      ok: false,
      status: contact.status,
      message: contact.status === 404 ? `No contact has the address ${email}.` : contact.message,
    };
  const [segments, properties] = await Promise.all([
    everyItem<{ id: string }>(who, `/contacts/${contact.body.id}/segments`),
    everyItem<{ id: string; key: string; fallback_value: string | number | null }>(who, "/contact-properties"),
  ]);
  if (!segments.ok) return segments;
  if (!properties.ok) return properties;
  if (!segments.body.data.some((s) => s.id === b.segment_id))
    return { ok: false, status: 422, message: `${email} is not a contact of this broadcast's segment.` };
  const c = contact.body;
  const parts = personalizeBroadcast({
    subject: b.subject ?? "",
    html: b.html,
    text: b.text,
    contact: {
      email: c.email,
      firstName: c.first_name,
      lastName: c.last_name,
      properties: Object.fromEntries(Object.entries(c.properties).map(([key, p]) => [key, p.value])),
    },
    propertyFallbacks: Object.fromEntries(properties.body.data.map((p) => [p.key, p.fallback_value])),
    unsubscribeUrl: previewUnsubscribeUrl,
  });
  return { ok: true, parts };
}

const framePath = (id: string, email: string) => withQuery(`${broadcastPath(id)}/preview`, { contact: email });

/**
 * A form to choose a contact of the segment (the first ones are suggested), and the broadcast rendered for
 * the chosen one: its subject, and its body in a sandboxed frame, as an email's page shows it.
 */
export async function previewSection(who: SignedIn, b: BroadcastObject, pagePath: string, email: string | undefined): Promise<Html> {
  const [suggestions, preview] = await Promise.all([
    b.segment_id
      ? who.api.get<{ data: { email: string }[] }>(withQuery("/contacts", { segment_id: b.segment_id, limit: listPageSize }))
      : undefined,
    email ? personalPreview(who, b, email) : undefined,
  ]);
  const shown =
    preview &&
    email &&
    (preview.ok
      ? html`<p><strong>Subject:</strong> ${preview.parts.subject}</p>
          <iframe
            class="preview"
            sandbox=""
            referrerpolicy="no-referrer"
            src="${framePath(b.id, email)}"
            title="${`The broadcast as ${email} receives it, without its scripts`}"
          ></iframe>`
      : errorNotice("No preview.", preview.message));
  return html`<section class="panel" aria-labelledby="preview-heading">
    <h2 id="preview-heading">Preview for a contact</h2>
    <form method="get" action="${pagePath}" class="fields">
      <div class="field">
        <label for="preview_contact">Contact's email</label>
        <input id="preview_contact" name="contact" type="email" required list="segment-contacts" value="${email ?? ""}" />
        <datalist id="segment-contacts">
          ${suggestions?.ok && suggestions.body.data.map((c) => html`<option value="${c.email}"></option>`)}
        </datalist>
      </div>
      <div class="field"><button type="submit" class="secondary">Preview</button></div>
    </form>
    ${shown}
  </section>`;
}

/** The preview's frame: the personalised body as its own document, sandboxed as an email's body is (emailDetail.ts). */
export function broadcastPreviewFrame(dashboard: Dashboard): void {
  const params = z.object({ id: z.guid() });
  dashboard.page("/broadcasts/:id/preview", { params, querystring: previewQuery }, async (who, { params: { id }, query }) => {
    const headers = { "content-security-policy": sharedFrameCsp, "x-frame-options": "SAMEORIGIN" };
    const problem = (status: number, message: string) => ({
      status,
      page: html`<!doctype html>
        <p>${message}</p>`,
      headers,
    });
    const broadcast = await who.api.get<BroadcastObject>(`/broadcasts/${id}`);
    if (!broadcast.ok) return problem(broadcast.status, broadcast.message);
    if (!query.contact) return problem(400, "Choose a contact to preview the broadcast for.");
    const preview = await personalPreview(who, broadcast.body, query.contact);
    if (!preview.ok) return problem(preview.status, preview.message);
    return { status: 200, page: new Html(sharedFrameDocument(preview.parts)), headers };
  });
}
