import { z } from "zod";
import { formatTimestamp, newId } from "@tidings/core";
import type { ApiInstance, ApiRoutes } from "../app.js";
import { callerWrites } from "../callerWrites.js";
import { revokeEmailShare, shareEmail } from "../handlers/shareEmail.js";
import { idempotentId } from "../plugins/idempotency.js";
import { ok } from "../replies.js";
import type { ApiServices } from "../services.js";
import { shareLinks } from "../shares/shareLinks.js";
import { wireTimestampText } from "../wireTimestamp.js";

const tags = ["emails"];
const emailParams = z.object({ id: z.uuid() });
const shareParams = z.object({ id: z.uuid(), shareId: z.uuid() });
const shareBody = z
  .object({
    expires_in: z
      .string()
      .optional()
      .describe(
        "How long the link stays valid for, as a duration like `10m`, `2 hours`, or `1 day`. Defaults to `48h` and cannot exceed 48 hours.",
      ),
  })
  // The body is optional in the document; a request without one reaches the route as null.
  .nullish();
const shareReply = z.object({
  object: z.literal("email"),
  id: z.uuid().describe("The ID of the email."),
  url: z.string().describe("The shareable link, valid until it expires."),
  share_id: z.uuid().describe("Tidings: the link's id, for `DELETE /emails/{id}/share/{share_id}`."),
  expires_at: wireTimestampText().describe("Tidings: when the link stops working."),
});
const notFound = { not_found: "The team has no email, sent or received, with this id (or no such link of it)." };

/**
 * Share links of sent and received emails (docs/wire-compatibility.md §6.1): `POST /emails/:id/share` as
 * Resend's document has it, and the Tidings additions that revoke links. The links themselves are served
 * by `sharedEmailRoutes`.
 */
export function emailShareRoutes(services: ApiServices): ApiRoutes {
  const links = shareLinks({ secret: services.secret, publicUrl: services.config.PUBLIC_URL });
  const write = callerWrites(services);

  return (app: ApiInstance) => {
    app.post(
      "/emails/:id/share",
      {
        config: { idempotency: true },
        schema: {
          tags,
          summary: "Create a shareable link for a sent or received email",
          params: emailParams,
          body: shareBody,
          errors: notFound,
          response: { 200: shareReply },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        // With an Idempotency-Key, the link's id derives from it, so a retry that takes over a cut-off run makes no second link.
        const shareId = idempotentId(request, "email-share", 0) ?? newId();
        const created = await write(request, (auth, metadata) =>
          shareEmail(services, auth.teamId, id, request.body?.expires_in, shareId, metadata),
        );
        const expiresAt = Math.floor(created.expiresAt.getTime() / 1000);
        return ok(reply, {
          object: "email" as const,
          id,
          url: links.url({ shareId, emailId: id, expiresAt }),
          share_id: shareId,
          expires_at: formatTimestamp(created.expiresAt),
        });
      },
    );

    app.delete(
      "/emails/:id/share/:shareId",
      {
        schema: {
          tags,
          summary: "Revoke a share link (Tidings)",
          params: shareParams,
          errors: notFound,
          response: { 200: z.object({ object: z.literal("email_share"), id: z.uuid(), email_id: z.uuid(), revoked: z.literal(true) }) },
        },
      },
      async (request, reply) => {
        const { id, shareId } = request.params;
        await write(request, (auth, metadata) => revokeEmailShare(services, auth.teamId, id, shareId, metadata));
        return ok(reply, { object: "email_share" as const, id: shareId, email_id: id, revoked: true as const });
      },
    );

    app.delete(
      "/emails/:id/share",
      {
        schema: {
          tags,
          summary: "Revoke every share link of an email (Tidings)",
          params: emailParams,
          errors: notFound,
          response: { 200: z.object({ object: z.literal("email"), id: z.uuid(), revoked: z.literal(true) }) },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        await write(request, (auth, metadata) => revokeEmailShare(services, auth.teamId, id, null, metadata));
        return ok(reply, { object: "email" as const, id, revoked: true as const });
      },
    );
  };
}
