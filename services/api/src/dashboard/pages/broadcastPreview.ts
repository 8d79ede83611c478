import { z } from "zod";
import type { PersonalizedParts } from "@tidings/domain";
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

type Preview = { ok: true; parts: PersonalizedParts } | { ok: false; status: number; message: string };

/**
 * The broadcast as `email` would receive it: `GET /broadcasts/:id/preview`, which renders it with the
 * broadcast saga's own `personalizeBroadcast`, here with the refusals put in a person's words.
 */
async function personalPreview(who: SignedIn, b: BroadcastObject, email: string): Promise<Preview> {
  if (!b.segment_id) return { ok: false, status: 422, message: "The draft has no segment yet: choose one and save it." };
  const preview = await who.api.get<PersonalizedParts>(withQuery(`/broadcasts/${b.id}/preview`, { contact: email }));
  if (preview.ok) return { ok: true, parts: preview.body };
  if (preview.status === 404) return { ok: false, status: 404, message: `No contact has the address ${email}.` };
  if (preview.status === 422) return { ok: false, status: 422, message: `${email} is not a contact of this broadcast's segment.` };
  return preview;
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
