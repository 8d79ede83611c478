import multipart from "@fastify/multipart";
import { z } from "zod";
import { TidingsError } from "@tidings/core";
import { BlobTooLargeError, createStreamedBlobStore } from "@tidings/blobs";
import { contactImportStatuses } from "@tidings/domain";
import type { ApiRoutes } from "../app.js";
import { queueContactImport } from "../handlers/queueContactImport.js";
import { listQuerySchema } from "../pagination.js";
import { getContactImport, listContactImports } from "../queries/contactImports.js";
import { created, ok } from "../replies.js";
import { callerWrites } from "../callerWrites.js";
import type { ApiServices } from "../services.js";
import { importForm, importOptions } from "./contactImportFields.js";
import { wireTimestampText } from "../wireTimestamp.js";
import { teamReads } from "./readRoutes.js";

const tags = ["contacts"];
const counts = z.object({ total: z.number(), created: z.number(), updated: z.number(), skipped: z.number(), failed: z.number() });
const item = z.object({
  object: z.literal("contact_import"),
  id: z.uuid(),
  status: z.enum(contactImportStatuses),
  created_at: wireTimestampText(),
  completed_at: wireTimestampText().nullable(),
  counts,
});

/**
 * `/contacts/imports` (docs/wire-compatibility.md §6.10 and §10.6). The CSV is streamed into the blob store as it arrives,
 * never held whole; the contact-import saga then reads it from there.
 */
export function contactImportRoutes(services: ApiServices): ApiRoutes {
  const blobs = createStreamedBlobStore(services.database);
  const write = callerWrites(services);
  const maxBytes = services.config.CONTACT_IMPORT_MAX_BYTES;
  const tooLarge = () =>
    new TidingsError("body_too_large", `\`file\` must be at most ${maxBytes} bytes (${(maxBytes / 1024 / 1024).toFixed(0)} MB).`);
  return async (app) => {
    // Only this scope parses multipart; the file part is a stream, capped at the seed's 200 MB. A JSON
    // body is refused (415) before the form's schema would call it a form without its file.
    await app.register(multipart, { limits: { files: 1, fileSize: maxBytes, fields: 10 } });
    app.removeContentTypeParser("application/json");

    const errors = { not_found: "A segment or topic the form names does not exist." };
    const schema = {
      tags,
      consumes: ["multipart/form-data"],
      body: importForm,
      errors,
      response: { 201: z.object({ object: z.literal("contact_import"), id: z.uuid() }) },
    };
    app.post("/contacts/imports", { bodyLimit: maxBytes + 1024 * 1024, schema }, async (request, reply) => {
      if (!request.isMultipart())
        throw new TidingsError("unsupported_media_type", "The body must be `multipart/form-data`, with the CSV in a `file` field.");
      // Fastify holds the bodies it reads itself to `bodyLimit`; this one is streamed, so its declared length is checked here.
      const { bodyLimit } = request.routeOptions;
      if (Number(request.headers["content-length"]) > bodyLimit)
        throw new TidingsError("body_too_large", `The request body is larger than the limit of ${bodyLimit} bytes for this endpoint.`);
      let file: { sha256: string; size: number } | undefined;
      const fields: Record<string, string> = {};
      try {
        for await (const part of request.parts()) {
          if (part.type === "file") {
            if (part.fieldname !== "file")
              throw new TidingsError("validation_error", `Unknown file field \`${part.fieldname}\`; the CSV goes in \`file\`.`);
            file = await blobs.putStream(part.file, { maxBytes });
            if (part.file.truncated) throw tooLarge();
          } else fields[part.fieldname] = String(part.value);
        }
      } catch (error) {
        if (error instanceof BlobTooLargeError || (error as { code?: string }).code === "FST_REQ_FILE_TOO_LARGE") throw tooLarge();
        if (error instanceof TidingsError) throw error;
        throw new TidingsError("malformed_request", `The multipart body could not be read: ${(error as Error).message}`);
      }
      if (!file) throw new TidingsError("missing_required_field", "Missing `file` field.");
      const csv = file;
      let result;
      try {
        result = await write(request, (auth, metadata) => queueContactImport(services, auth.teamId, csv, importOptions(fields), metadata));
      } catch (error) {
        // No import holds the file: one refused here (a segment that does not exist, say) would keep it for ever.
        await blobs.release(csv.sha256);
        throw error;
      }
      return created(reply, { object: "contact_import" as const, id: result.id });
    });

    const reads = teamReads(app, services.database, tags);
    reads.list("/contacts/imports", listQuerySchema({ status: z.enum(contactImportStatuses).optional() }), item, listContactImports);

    app.get(
      "/contacts/imports/:id",
      {
        schema: {
          tags,
          params: z.object({ id: z.string().min(1).max(255) }),
          response: {
            200: item.extend({
              errors: z
                .array(z.object({ line: z.number(), reason: z.string() }))
                .describe("The first 100 rows that failed, with their line in the file."),
            }),
          },
        },
      },
      async (request, reply) => ok(reply, await reads.one(request, getContactImport, request.params.id, "Contact import not found")),
    );
  };
}
