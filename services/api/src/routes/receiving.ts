import { z } from "zod";
import { createBlobStore } from "@tidings/blobs";
import { TidingsError } from "@tidings/core";
import { hasPlainTextBody } from "@tidings/mail";
import type { ApiInstance, ApiRoutes } from "../app.js";
import { signedDownloads } from "../attachments/attachmentDownloads.js";
import { blobBytes } from "../blobBytes.js";
import { BlobNotFoundError } from "@tidings/blobs";
import { downloadErrors, sendDownload } from "../downloadReply.js";
import { headerRecord, parseReceived } from "../inbound/parseReceived.js";
import { bytesResponse } from "../mediaResponses.js";
import { listQuerySchema, listSchema } from "../pagination.js";
import { requireAuth } from "../plugins/auth.js";
import { inboundAttachmentItem, inboundEmailQueries, type InboundAttachmentRow } from "../queries/inboundEmails.js";
import { ok } from "../replies.js";
import type { ApiServices } from "../services.js";
import { wireTimestampText } from "../wireTimestamp.js";
import { messageHeaders } from "./emailSchemas.js";

const tags = ["receiving"];
const emailParams = z.object({ id: z.uuid() });
const attachmentParams = z.object({ id: z.uuid(), attachmentId: z.uuid() });
const signedQuery = z.object({ expires: z.coerce.number().int(), signature: z.string() });
const signed = { download_url: z.string(), expires_at: wireTimestampText() };

const inboundAttachment = z.object({
  id: z.uuid(),
  filename: z.string().nullable(),
  size: z.number().int(),
  content_type: z.string(),
  content_id: z.string().nullable(),
  content_disposition: z.string().nullable(),
});
const listItem = messageHeaders.extend({
  received_for: z.array(z.string()),
  message_id: z.string().nullable(),
  attachments: z.array(inboundAttachment),
});
const receivedEmail = listItem.extend({
  object: z.literal("email"),
  html: z.string().nullable(),
  text: z.string().nullable(),
  headers: z.record(z.string(), z.string()).nullable(),
  raw: z.object(signed).nullable(),
});
const attachmentData = inboundAttachment.extend(signed);

/**
 * Received mail (docs/wire-compatibility.md §6.3). GET parses the body from the raw message as it arrived; `raw` and the
 * attachments are signed URLs that need no key, as the SDK's `receiving.forward` fetches `raw` with
 * plain `fetch`.
 */
export function receivingRoutes(services: ApiServices): ApiRoutes {
  const blobs = createBlobStore(services.database);
  const queries = inboundEmailQueries(services.database);
  const downloads = signedDownloads({ secret: services.secret, publicUrl: services.config.PUBLIC_URL, clock: services.clock });
  const rawPath = (id: string) => `/emails/receiving/${id}/raw`;
  const attachmentPath = (id: string, attachmentId: string) => `/emails/receiving/${id}/attachments/${attachmentId}/download`;
  const attachmentOut = (row: InboundAttachmentRow) => ({
    ...inboundAttachmentItem(row),
    ...downloads.sign(attachmentPath(row.email_id, row.id)),
  });
  const checkSignature = (path: string, query: z.infer<typeof signedQuery>) => {
    if (!downloads.verify(path, query.expires, query.signature))
      throw new TidingsError(
        "invalid_download_url",
        "This download URL is invalid or has expired. Retrieve the email again for a new one.",
      );
  };

  return (app: ApiInstance) => {
    app.get(
      "/emails/receiving",
      { schema: { tags, summary: "List received emails", querystring: listQuerySchema(), response: { 200: listSchema(listItem) } } },
      async (request, reply) => ok(reply, await queries.list(requireAuth(request).teamId, request.query)),
    );

    app.get(
      "/emails/receiving/:id",
      {
        schema: {
          tags,
          summary: "Retrieve a received email",
          params: emailParams,
          querystring: z.object({
            html_format: z
              .enum(["data_uri", "cid"])
              .default("data_uri")
              .describe("`data_uri` (default) embeds inline images in the html; `cid` keeps `cid:` references."),
          }),
          response: { 200: receivedEmail },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        const found = await queries.get(requireAuth(request).teamId, id);
        if (!found) throw new TidingsError("not_found", "Email not found");
        const raw = await blobs.get(found.rawBlob).catch((error: unknown) => {
          if (error instanceof BlobNotFoundError) return null;
          throw error;
        });
        // Erased or past its retention (docs/privacy.md): what happened stays, what it said is gone.
        if (raw === null) return ok(reply, { object: "email" as const, ...found.item, html: null, text: null, headers: {}, raw: null });
        const parsed = await parseReceived(raw, request.query.html_format);
        return ok(reply, {
          object: "email" as const,
          ...found.item,
          html: typeof parsed.html === "string" ? parsed.html : null,
          text: hasPlainTextBody(raw) ? (parsed.text ?? null) : null,
          headers: headerRecord(parsed),
          raw: downloads.sign(rawPath(id)),
        });
      },
    );

    app.get(
      "/emails/receiving/:id/raw",
      {
        schema: {
          tags,
          summary: "Download a received email as it arrived, through a signed URL",
          security: [],
          params: emailParams,
          querystring: signedQuery,
          errors: downloadErrors,
          response: { 200: bytesResponse("The message as it arrived.", "message/rfc822") },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        checkSignature(rawPath(id), request.query);
        const blob = await queries.rawBlob(id);
        if (!blob) throw new TidingsError("not_found", "Email not found");
        return sendDownload(reply, await blobBytes(blobs, blob, "Email not found"), {
          contentType: "message/rfc822",
          disposition: "attachment",
          filename: `${id}.eml`,
        });
      },
    );

    app.get(
      "/emails/receiving/:id/attachments",
      {
        schema: {
          tags,
          summary: "List a received email's attachments",
          params: emailParams,
          querystring: listQuerySchema(),
          response: { 200: listSchema(attachmentData) },
        },
      },
      async (request, reply) => {
        const page = await queries.attachments(requireAuth(request).teamId, request.params.id, request.query);
        if (!page) throw new TidingsError("not_found", "Email not found");
        return ok(reply, { ...page, data: page.data.map(attachmentOut) });
      },
    );

    app.get(
      "/emails/receiving/:id/attachments/:attachmentId",
      {
        schema: {
          tags,
          summary: "Retrieve a received email's attachment",
          params: attachmentParams,
          response: { 200: attachmentData.extend({ object: z.literal("attachment") }) },
        },
      },
      async (request, reply) => {
        const { id, attachmentId } = request.params;
        const page = await queries.attachments(requireAuth(request).teamId, id, {});
        const row = page?.data.find((a) => a.id === attachmentId);
        if (!row) throw new TidingsError("not_found", "Attachment not found");
        return ok(reply, { object: "attachment" as const, ...attachmentOut(row) });
      },
    );

    app.get(
      "/emails/receiving/:id/attachments/:attachmentId/download",
      {
        schema: {
          tags,
          summary: "Download a received email's attachment through a signed URL",
          security: [],
          params: attachmentParams,
          querystring: signedQuery,
          errors: downloadErrors,
          response: { 200: bytesResponse("The attachment's bytes, with the type it arrived with.", "*/*") },
        },
      },
      async (request, reply) => {
        const { id, attachmentId } = request.params;
        checkSignature(attachmentPath(id, attachmentId), request.query);
        const row = await queries.attachmentForDownload(id, attachmentId);
        if (!row) throw new TidingsError("not_found", "Attachment not found");
        const bytes = await blobBytes(blobs, row.blob, "Attachment not found");
        return sendDownload(reply, bytes, {
          contentType: row.content_type,
          disposition: row.disposition,
          filename: row.filename ?? "attachment",
        });
      },
    );
  };
}
