import { z } from "zod";
import type { FastifyRequest, FastifySchemaCompiler } from "fastify";
import { createBlobStore } from "@tidings/blobs";
import { TidingsError } from "@tidings/core";
import { comparePositions } from "@tidings/eventstore";
import type { EmailIdOrigin } from "@tidings/sending";
import type { ApiInstance, ApiRoutes } from "../app.js";
import { signedDownloads } from "../attachments/attachmentDownloads.js";
import { blobBytes } from "../blobBytes.js";
import { downloadErrors, sendDownload } from "../downloadReply.js";
import { cancelEmail, rescheduleEmail } from "../handlers/changeEmail.js";
import { prepareEmail, type PreparedEmail } from "../handlers/prepareEmail.js";
import { sendEmail, sendEmails } from "../handlers/sendEmail.js";
import { sendingDomainCache } from "../lookups/sendingDomainCache.js";
import { sendingPauseCheck } from "../lookups/sendingPauses.js";
import { suppressedRecipients } from "@tidings/sending";
import { bytesResponse } from "../mediaResponses.js";
import { listQuerySchema, listSchema } from "../pagination.js";
import { requireAuth } from "../plugins/auth.js";
import { idempotentId } from "../plugins/idempotency.js";
import { zodValidatorCompiler } from "../plugins/validation.js";
import { attachmentForDownload, emailAttachments, emailQueries, type AttachmentRow } from "../queries/emails.js";
import { ok } from "../replies.js";
import { requestMetadata } from "../requestMetadata.js";
import { callerWrites, settle } from "../callerWrites.js";
import type { ApiServices } from "../services.js";
import {
  attachmentItem,
  batchItemDocument,
  emailListFilters,
  emailListItem,
  emailObject,
  sendEmailBody,
  type SendEmailBody,
} from "./emailSchemas.js";

const tags = ["emails"];
const MAX_BATCH = 100;
/** 40 MB of base64 attachments, plus the JSON around them (docs/wire-compatibility.md §6.1). */
const SEND_BODY_LIMIT = 42 * 1024 * 1024;
const BATCH_BODY_LIMIT = 16 * 1024 * 1024;

const emailParams = z.object({ id: z.uuid() });

/** Whether a send's email ids come from its Idempotency-Key (`idempotentId`) or were made for the request. */
const idOrigin = (request: FastifyRequest): EmailIdOrigin => (idempotentId(request, "email", 0) === undefined ? "fresh" : "derived");
const attachmentParams = z.object({ id: z.uuid(), attachmentId: z.uuid() });
const emailRef = z.object({ object: z.literal("email"), id: z.uuid() });
/** What `prepareEmail` refuses beyond the schema, for the OpenAPI document. */
const sendErrors = {
  sending_domain_restricted: "The `from` domain is not verified or has sending disabled, or the key may only send from another domain.",
  invalid_from_address: "`from` is not an address.",
  sending_paused: "The team, or the `from` domain, is paused for its bounce or complaint rate (403); the message names the rate.",
  invalid_attachment: "An attachment is not valid, or they exceed 40 MB.",
};
const batchHeaders = z.object({
  "x-batch-validation": z
    .enum(["strict", "permissive"])
    .optional()
    .describe("`strict` (default) refuses the whole batch on one invalid email."),
});
const batchReply = z.object({
  data: z.array(z.object({ id: z.uuid() })),
  errors: z.array(z.object({ index: z.number().int(), message: z.string() })).optional(),
});

/** Batch items are checked one by one (permissive mode keeps the valid ones), with the same wording as a single send. */
const checkBatchItem = (zodValidatorCompiler as FastifySchemaCompiler<typeof sendEmailBody>)({
  schema: sendEmailBody,
  httpPart: "body",
  method: "POST",
  url: "/emails/batch",
});

function parseBatchItem(item: unknown): SendEmailBody {
  const result = checkBatchItem(item) as { value?: SendEmailBody; error?: Error };
  if (result.error) throw result.error;
  const body = result.value!;
  if (body.attachments !== undefined) throw new TidingsError("validation_error", "`attachments` is not supported in batch sends.");
  if (body.scheduled_at !== undefined) throw new TidingsError("validation_error", "`scheduled_at` is not supported in batch sends.");
  return body;
}

/**
 * Emails (docs/wire-compatibility.md §6.1, §6.2). Sending keys may call the two sending routes only (plugins/auth.ts). A
 * write replies once the emails read model shows it.
 */
export function emailRoutes(services: ApiServices): ApiRoutes {
  const blobs = createBlobStore(services.database);
  const queries = emailQueries(services.database, new URL(services.config.PUBLIC_URL).hostname);
  const downloads = signedDownloads({ secret: services.secret, publicUrl: services.config.PUBLIC_URL, clock: services.clock });
  const downloadPath = (emailId: string, attachmentId: string) => `/emails/${emailId}/attachments/${attachmentId}/download`;
  const prepareDeps = { store: services.store, blobs, config: services.config, domains: sendingDomainCache(services.store) };
  const sendDeps = {
    store: services.store,
    suppressed: suppressedRecipients(services.database, services.hashSubject),
    paused: sendingPauseCheck(services.database),
    clock: services.clock,
  };
  const write = callerWrites(services);
  const attachmentOut = (emailId: string, row: AttachmentRow) => ({
    id: row.id,
    filename: row.filename,
    size: Number(row.size),
    content_type: row.content_type,
    content_disposition: row.disposition,
    ...(row.content_id === null ? {} : { content_id: row.content_id }),
    ...downloads.sign(downloadPath(emailId, row.id)),
  });

  return (app: ApiInstance) => {
    if (services.config.TIDINGS_ALLOW_UNVERIFIED_FROM)
      app.log.warn("TIDINGS_ALLOW_UNVERIFIED_FROM is on: emails are sent from any domain, verified or not");

    app.post(
      "/emails",
      {
        bodyLimit: SEND_BODY_LIMIT,
        config: { idempotency: true },
        schema: { tags, summary: "Send an email", body: sendEmailBody, errors: sendErrors, response: { 200: z.object({ id: z.uuid() }) } },
      },
      async (request, reply) => {
        const auth = requireAuth(request);
        const prepared = await prepareEmail(prepareDeps, auth, request.body, services.clock.now(), idempotentId(request, "email", 0));
        const sent = await sendEmail(sendDeps, prepared, requestMetadata(request, auth, services.clock), idOrigin(request));
        await services.waitFor(sent.position);
        return ok(reply, { id: sent.id });
      },
    );

    app.post(
      "/emails/batch",
      {
        bodyLimit: BATCH_BODY_LIMIT,
        config: { idempotency: true },
        schema: {
          tags,
          summary: "Send up to 100 emails",
          headers: batchHeaders,
          errors: sendErrors,
          body: z.array(z.unknown()).min(1).max(MAX_BATCH).meta({ items: batchItemDocument }).describe(`Up to ${MAX_BATCH} emails.`),
          response: { 200: batchReply },
        },
      },
      async (request, reply) => {
        const auth = requireAuth(request);
        const permissive = request.headers["x-batch-validation"] === "permissive";
        const now = services.clock.now();
        const prepared: { index: number; email: PreparedEmail }[] = [];
        const errors: { index: number; message: string }[] = [];
        for (const [index, item] of request.body.entries()) {
          try {
            prepared.push({
              index,
              email: await prepareEmail(prepareDeps, auth, parseBatchItem(item), now, idempotentId(request, "email", index)),
            });
          } catch (error) {
            if (!(error instanceof TidingsError) || !permissive) {
              if (error instanceof TidingsError) throw new TidingsError(error.code, `Email ${index}: ${error.message}`);
              throw error;
            }
            errors.push({ index, message: error.message });
          }
        }
        const metadata = requestMetadata(request, auth, services.clock);
        const sent = await sendEmails(
          sendDeps,
          prepared.map(({ email }) => email),
          metadata,
          idOrigin(request),
        );
        const last = sent
          .map((s) => s.position)
          .sort(comparePositions)
          .at(-1);
        await settle(services, [last]);
        const data = sent.map((s) => ({ id: s.id }));
        return ok(reply, permissive ? { data, errors } : { data });
      },
    );

    app.get(
      "/emails",
      {
        schema: {
          tags,
          summary: "List sent emails",
          querystring: listQuerySchema(emailListFilters),
          response: { 200: listSchema(emailListItem) },
        },
      },
      async (request, reply) => ok(reply, await queries.list(requireAuth(request).teamId, request.query)),
    );

    app.get(
      "/emails/:id",
      { schema: { tags, summary: "Retrieve an email", params: emailParams, response: { 200: emailObject } } },
      async (request, reply) => {
        const email = await queries.get(requireAuth(request).teamId, request.params.id);
        if (!email) throw new TidingsError("not_found", "Email not found");
        return ok(reply, email);
      },
    );

    app.patch(
      "/emails/:id",
      {
        schema: {
          tags,
          summary: "Reschedule an email",
          params: emailParams,
          body: z.object({ scheduled_at: z.string() }),
          response: { 200: emailRef },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        await write(request, (auth, metadata) => rescheduleEmail(services, auth.teamId, id, request.body.scheduled_at, metadata));
        return ok(reply, { object: "email" as const, id });
      },
    );

    app.post(
      "/emails/:id/cancel",
      { schema: { tags, summary: "Cancel a scheduled email", params: emailParams, response: { 200: emailRef } } },
      async (request, reply) => {
        const { id } = request.params;
        await write(request, (auth, metadata) => cancelEmail(services, auth.teamId, id, metadata));
        return ok(reply, { object: "email" as const, id });
      },
    );

    app.get(
      "/emails/:id/attachments",
      {
        schema: {
          tags,
          summary: "List an email's attachments",
          params: emailParams,
          querystring: listQuerySchema(),
          response: { 200: listSchema(attachmentItem) },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        const page = await emailAttachments(services.database, requireAuth(request).teamId, id, request.query);
        if (!page) throw new TidingsError("not_found", "Email not found");
        return ok(reply, { ...page, data: page.data.map((row) => attachmentOut(id, row)) });
      },
    );

    app.get(
      "/emails/:id/attachments/:attachmentId",
      {
        schema: {
          tags,
          summary: "Retrieve an attachment",
          params: attachmentParams,
          response: { 200: attachmentItem.extend({ object: z.literal("attachment") }) },
        },
      },
      async (request, reply) => {
        const { id, attachmentId } = request.params;
        const page = await emailAttachments(services.database, requireAuth(request).teamId, id, {});
        const row = page?.data.find((a) => a.id === attachmentId);
        if (!row) throw new TidingsError("not_found", "Attachment not found");
        return ok(reply, { object: "attachment" as const, ...attachmentOut(id, row) });
      },
    );

    app.get(
      "/emails/:id/attachments/:attachmentId/download",
      {
        schema: {
          tags,
          summary: "Download an attachment through a signed URL",
          security: [],
          params: attachmentParams,
          querystring: z.object({ expires: z.coerce.number().int(), signature: z.string() }),
          errors: downloadErrors,
          response: { 200: bytesResponse("The attachment's bytes, with the type it was sent with.", "*/*") },
        },
      },
      async (request, reply) => {
        const { id, attachmentId } = request.params;
        const { expires, signature } = request.query;
        if (!downloads.verify(downloadPath(id, attachmentId), expires, signature))
          throw new TidingsError(
            "invalid_download_url",
            "This download URL is invalid or has expired. Retrieve the attachment again for a new one.",
          );
        const row = await attachmentForDownload(services.database, id, attachmentId);
        if (!row) throw new TidingsError("not_found", "Attachment not found");
        const bytes = await blobBytes(blobs, row.blob, "Attachment not found");
        return sendDownload(reply, bytes, { contentType: row.content_type, disposition: row.disposition, filename: row.filename });
      },
    );
  };
}
