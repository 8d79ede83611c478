import { z } from "zod";
import { TidingsError } from "@tidings/core";
import { onConflictChoices, topicSubscriptions, type ColumnMap, type ContactTopicChoice, type OnConflict } from "@tidings/domain";
import { fieldName } from "../plugins/validation.js";

/**
 * The form fields of POST /contacts/imports besides the file (docs/wire-compatibility.md §10.6): objects and arrays arrive as
 * JSON text. Each is parsed and checked here, and a problem names its field and the path inside it.
 */
const columnMapField = z.object({
  email: z.string().min(1).optional(),
  first_name: z.string().min(1).optional(),
  last_name: z.string().min(1).optional(),
  unsubscribed: z.string().min(1).optional(),
  properties: z
    .record(z.string(), z.object({ column: z.string().min(1), type: z.enum(["string", "number", "boolean"]).optional() }))
    .optional(),
});
const segmentsField = z.array(z.object({ id: z.uuid() }));
const topicsField = z.array(z.object({ id: z.uuid(), subscription: z.enum(topicSubscriptions) }));

/**
 * The form as the OpenAPI document shows it: the CSV and the fields above, each a string. The parts are
 * streamed and never land in `request.body` (fastify leaves it null), so the schema takes a missing body;
 * the fields are checked by `importOptions`.
 */
export const importForm = z
  .object({
    file: z.string().meta({ contentMediaType: "text/csv" }).describe("The CSV, with a header row."),
    column_map: z
      .string()
      .optional()
      .describe("JSON text: the column of `email`, `first_name`, `last_name`, `unsubscribed`, and of each property."),
    on_conflict: z.enum(onConflictChoices).optional().describe("What to do with a row whose email is a contact already; default `upsert`."),
    segments: z.string().optional().describe('JSON text: `[{"id": …}]`, the segments every imported contact joins.'),
    topics: z.string().optional().describe('JSON text: `[{"id": …, "subscription": "opt_in" | "opt_out"}]`.'),
  })
  .nullish();

export interface ImportOptions {
  columnMap: ColumnMap;
  onConflict: OnConflict;
  segmentIds: string[];
  topics: ContactTopicChoice[];
}

function parseJsonField<T>(name: string, text: string | undefined, schema: z.ZodType<T>): T | undefined {
  if (text === undefined || text === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TidingsError("validation_error", `\`${name}\` must be JSON text.`);
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new TidingsError("validation_error", `\`${fieldName([name, ...issue.path])}\`: ${issue.message}`);
}

/** The defaults name the columns after the contact's fields; `on_conflict` defaults to `upsert` (docs/wire-compatibility.md §10.6). */
export function importOptions(fields: Record<string, string>): ImportOptions {
  const map = parseJsonField("column_map", fields.column_map, columnMapField) ?? {};
  const onConflict = fields.on_conflict ?? "upsert";
  if (!(onConflictChoices as readonly string[]).includes(onConflict))
    throw new TidingsError("validation_error", `\`on_conflict\` must be one of ${onConflictChoices.map((c) => `\`${c}\``).join(", ")}.`);
  return {
    columnMap: {
      email: map.email ?? "email",
      firstName: map.first_name ?? "first_name",
      lastName: map.last_name ?? "last_name",
      unsubscribed: map.unsubscribed ?? "unsubscribed",
      properties: Object.fromEntries(Object.entries(map.properties ?? {}).map(([key, { column }]) => [key, column])),
    },
    onConflict: onConflict as OnConflict,
    segmentIds: (parseJsonField("segments", fields.segments, segmentsField) ?? []).map((s) => s.id),
    topics: (parseJsonField("topics", fields.topics, topicsField) ?? []).map((t) => ({ topicId: t.id, subscription: t.subscription })),
  };
}
