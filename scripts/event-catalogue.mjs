#!/usr/bin/env node
// Writes docs/events.md, the catalogue of every event Tidings records, from the zod schemas that
// `packages/domain` exports: which stream category holds each event, and the fields of its `data`.
//
//   npx tsc -b && node scripts/event-catalogue.mjs
//
// Run as a script it reads the built `@tidings/domain` (hence the build first). `test/docs.test.ts` calls
// `eventCatalogue` on the TypeScript sources instead and fails while docs/events.md differs from it.
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { z } from "zod";

export const catalogueFile = new URL("../docs/events.md", import.meta.url);
export const regenerateCommand = "npx tsc -b && node scripts/event-catalogue.mjs";

/**
 * Events that belong to no aggregate's union, and the stream function of each. Every other event is found
 * through its union (`EmailEvent` → `emailStream`); an event that is in neither stops the script, so a new
 * one cannot be left out of the catalogue unnoticed.
 */
const streamOfLoneEvent = {
  ContactErased: "contactErasureStream",
  SubjectErased: "subjectErasureStream",
  CustomEventReceived: "customEventStream",
};

const isSchema = (value) => Boolean(value && typeof value === "object" && "_zod" in value);
const isEventSchema = (value) =>
  isSchema(value) && value.def.type === "object" && value.shape.type?.def.type === "literal" && isSchema(value.shape.data);
const isEventUnion = (name, value) =>
  name.endsWith("Event") && isSchema(value) && value.def.type === "union" && value.def.discriminator === "type";
const eventType = (schema) => schema.shape.type.def.values[0];

/** `EmailEvent` → `emailStream`, `AutomationRunEvent` → `automationRunStream`. */
const streamFunctionOf = (unionName) => `${unionName[0].toLowerCase()}${unionName.slice(1, -"Event".length)}Stream`;

/** The category of the streams a stream function names: the part of `email-<id>` before the first `-`. */
function categoryOf(domain, functionName) {
  const stream = domain[functionName];
  if (typeof stream !== "function") throw new Error(`@tidings/domain exports no ${functionName}`);
  const id = stream("<id>");
  return { category: id.slice(0, id.indexOf("-")), example: id, functionName };
}

/** Every stream category with its events, in the order each union lists them. */
export function eventGroups(domain) {
  const groups = [];
  const placed = new Set();
  for (const [name, value] of Object.entries(domain)) {
    if (!isEventUnion(name, value)) continue;
    const events = value.def.options;
    for (const event of events) placed.add(eventType(event));
    groups.push({ union: name, ...categoryOf(domain, streamFunctionOf(name)), events });
  }
  for (const [type, functionName] of Object.entries(streamOfLoneEvent)) {
    const event = domain[type];
    if (!isEventSchema(event)) throw new Error(`@tidings/domain exports no event schema ${type}`);
    placed.add(type);
    groups.push({ union: null, ...categoryOf(domain, functionName), events: [event] });
  }
  const unplaced = Object.values(domain)
    .filter(isEventSchema)
    .map(eventType)
    .filter((type) => !placed.has(type));
  if (unplaced.length > 0) throw new Error(`events in no union and not in streamOfLoneEvent: ${unplaced.join(", ")}`);
  return groups.sort((a, b) => a.category.localeCompare(b.category));
}

const safeInteger = 2 ** 53 - 1;
const code = (text) => `\`${text}\``;

/** The constraints worth a reader's attention: lengths, bounds, a pattern that is not a format. */
function constraints(schema) {
  const notes = [];
  if (schema.format) notes.push(schema.format);
  else if (schema.pattern) notes.push(`matching ${code(schema.pattern)}`);
  const { minLength: least, maxLength: most } = schema;
  if (least !== undefined && most !== undefined) notes.push(`${least}–${most} characters`);
  else if (most !== undefined) notes.push(`at most ${most} characters`);
  else if (least !== undefined) notes.push(`at least ${least} character${least === 1 ? "" : "s"}`);
  if (schema.minimum !== undefined && schema.minimum > -safeInteger) notes.push(`≥ ${schema.minimum}`);
  if (schema.exclusiveMinimum !== undefined) notes.push(`> ${schema.exclusiveMinimum}`);
  if (schema.maximum !== undefined && schema.maximum < safeInteger) notes.push(`≤ ${schema.maximum}`);
  return notes.length > 0 ? ` (${notes.join(", ")})` : "";
}

/** One JSON Schema node as a short type: `string (uuid)`, `array of string`, `"a" | "b"`, `X or null`. */
function typeName(schema) {
  if (schema.anyOf) return schema.anyOf.map(typeName).join(" or ");
  if (schema.const !== undefined) return code(JSON.stringify(schema.const));
  if (schema.enum) return schema.enum.map((value) => code(JSON.stringify(value))).join(" \\| ");
  if (Array.isArray(schema.type)) return schema.type.join(" or ");
  switch (schema.type) {
    case undefined:
      return "any JSON value";
    case "array":
      return `array of ${schema.items?.type === "object" ? "objects" : typeName(schema.items ?? {})}`;
    case "object":
      if (schema.properties) return "object";
      if (schema.additionalProperties && typeof schema.additionalProperties === "object")
        return `map of ${typeName(schema.additionalProperties)}`;
      return "object";
    default:
      return `${schema.type}${constraints(schema)}`;
  }
}

/** The object a node holds, if any: itself, its items, a record's values, or the non-null side of `X or null`. */
function nestedObject(schema) {
  if (schema.anyOf) return schema.anyOf.map(nestedObject).find(Boolean);
  if (schema.type === "array" && schema.items) return nestedObject(schema.items);
  if (schema.type === "object" && schema.properties) return { schema, suffix: "" };
  if (schema.type === "object" && schema.additionalProperties && typeof schema.additionalProperties === "object") {
    const inner = nestedObject(schema.additionalProperties);
    return inner && { ...inner, suffix: `.<key>${inner.suffix}` };
  }
  return undefined;
}

/** One row per field, nested objects flattened into `parent.child` and `list[].child` rows. */
function fieldRows(objectSchema, prefix = "") {
  const required = new Set(objectSchema.required ?? []);
  return Object.entries(objectSchema.properties ?? {}).flatMap(([name, schema]) => {
    const path = `${prefix}${name}`;
    const row = `| ${code(path)} | ${typeName(schema)} | ${required.has(name) ? "required" : "optional"} |`;
    const nested = nestedObject(schema);
    if (!nested) return [row];
    const arrayish = schema.type === "array" || schema.anyOf?.some((s) => s.type === "array");
    return [row, ...fieldRows(nested.schema, `${path}${arrayish ? "[]" : ""}${nested.suffix}.`)];
  });
}

function eventSection(event) {
  const data = z.toJSONSchema(event.shape.data, { unrepresentable: "any" });
  const rows = fieldRows(data);
  return [`### ${eventType(event)}`, "", "| Field of `data` | Type | Presence |", "|---|---|---|", ...rows, ""].join("\n");
}

const preface = `# Event catalogue

<!-- Generated by scripts/event-catalogue.mjs from the zod schemas of packages/domain. Do not edit: run
${regenerateCommand} -->

Every event Tidings records, grouped by the category of the stream it is appended to. A stream id is
\`<category>-<id>\`, and the category is also the middle token of the bus subject the forwarder publishes
the event on (\`events.<category>.<Type>\`, see [architecture §5](architecture.md#5-sagas-and-the-bus)).
Each event is \`{type, data}\` plus the metadata below; the tables list the fields of \`data\` as the
event's zod schema in \`packages/domain\` defines them, nested objects flattened to \`parent.child\` and
arrays of objects to \`list[].child\`. Times inside \`data\` are strings, written in the wire format
(\`YYYY-MM-DD HH:MM:SS.ffffff+00\`); readers also accept ISO 8601.

Addresses and other personal values in \`data\` are stored sealed and read opened, or as \`erased:<tag>\`
once their subject is erased ([privacy](privacy.md)); the tables give them as readers see them. The sealing
store adds, in clear, the keyed hash of the address of a suppression: \`emailHash\` on SuppressionAdded and
SuppressionRemoved, and \`recipientHashes\` (in the order of \`recipients\`) on EmailBounced and
EmailComplained. An erased address stays suppressed by it. Events recorded without the sealing store lack them.
A BroadcastBatchPlanned's \`count\` is how many \`recipients\` it holds, in clear, so that the plan is counted
without opening its addresses; batches planned before it was recorded lack it, and count their \`recipients\`.

This file is generated: \`${regenerateCommand}\` rewrites it, and \`test/docs.test.ts\` fails while it
differs from what the schemas say.

## Metadata

Besides \`data\`, the event store keeps with every event its id (a uuid, unique across the store: the bus
deduplicates on it), its stream id and revision in that stream, its position in \`$all\`, the store's own
\`createdAt\`, and a \`metadata\` object (\`EventMetadata\` in \`packages/eventstore/src/port.ts\`, a
TypeScript interface rather than a zod schema, so this part is written by hand). The store takes any
object; every writer of Tidings sets the keys below (\`test/e2e/eventMetadata.e2e.test.ts\` fails on an event
without \`occurredAt\`, \`actor\` or \`correlationId\`):

| Key | What it holds | Set by |
|---|---|---|
| \`teamId\` | the team the event belongs to | every writer that acts for a team: all but the bootstrap's claim on the first key, made before its team exists; the webhook fan-out skips an event without it |
| \`actor\` | who caused it: \`api:<apiKeyId>\`, \`saga:<name>\` (\`delivery\`, \`scheduler\`, \`webhooks\`, \`automations\`, \`contact-import\`, \`broadcast-fan-out\`, \`broadcast-scheduler\`, \`domain-verification\`, \`reputation\`), \`cli\`, \`system:bootstrap\`, \`smtp\`, \`recipient\` (opens and clicks), \`contact:<contactId>\` (the preference page), \`feedback-loop\`, \`delivery-status-report\` | every writer |
| \`requestId\` | the id of the HTTP request, which is also its entry in \`GET /logs\` and its \`x-request-id\` header | the api, on the events a request appends itself |
| \`correlationId\` | the chain the event belongs to: the id of the request (or other origin, below) that started it | every writer |
| \`causationId\` | what caused this event: the request id for a request's own events, else the id of an event | every writer |
| \`occurredAt\` | when the writer decided it, by its clock, in the wire format | every writer |
| \`lane\` | the bus lane the forwarder publishes the event in: \`events.<category>.<Type>.<lane>\` instead of \`events.<category>.<Type>\` ([architecture.md §5](architecture.md), "Lanes"). \`bulk\` on the EmailQueued of a broadcast's emails, which the delivery saga consumes apart from transactional ones; absent on every other event | the broadcast fan-out |
| \`traceparent\` | the W3C trace context (\`00-<trace id>-<span id>-<flags>\`) of the append's span, so that the event's handling continues the trace of the request behind it (docs/operations.md, "Traces") | the event store, on every append while \`OTEL_EXPORTER_OTLP_ENDPOINT\` is set; absent otherwise |

**The correlation rule.** A chain starts where something from outside asks for work, and its id is that
origin's: an API request (the request id, as \`GET /logs\` and \`x-request-id\` give it), an open or click
(the tracking request's id), the unsubscribe page (its request's id), a message received over SMTP (the
inbound email's id), a bounce or complaint report (a fresh id for the report), a CLI command or the first
start's bootstrap (a fresh id for the operation, \`operationMetadata\` in \`packages/commands\`). The
origin's own events have that id as both \`correlationId\` and \`causationId\`. Everything the sagas append
carries the chain on (\`services/sagas/src/sagaMetadata.ts\`):

- reacting to an event off the bus (a webhook delivery made for an email event, a run started or resumed by a
  custom event, a broadcast or import run started by its BroadcastQueued or ContactImportQueued, a run
  canceled by a change to its automation), the event keeps the chain's \`correlationId\` and names that
  event as \`causationId\`;
- appended when a timer fires or a retry comes round, or from a stream the saga reads again (a scheduled
  email or broadcast queued, a delivery and its retries, a webhook attempt, a domain check and its re-checks,
  a run's next step), it reads the stream it acts on: the \`correlationId\` of the event that started the work
  there (the stream's first event, or its last BroadcastScheduled or DomainVerificationStarted), and the
  stream's last event as \`causationId\`. Timers and bus messages carry no chain of their own: the stream
  holds it, and a timer firing twice or a redelivered message finds the same one.

An automation run keeps the correlation of the request whose event started it, whatever resumes it later.

Events one decision appends together share their metadata, and so their cause: EmailSent and EmailDelivered
are both caused by the EmailQueued (or deferral) the attempt was for. A broadcast's emails are caused by their
batch's BroadcastBatchPlanned; an automation step's emails and contact changes by the run event before the
step. So the request id of \`POST /emails\` finds, by \`correlationId\`, the email's events down to
EmailDelivered and the webhook deliveries of its \`email.*\` events with their attempts, and that of
\`POST /broadcasts/:id/send\` every email of the broadcast.

\`traceparent\` is set below every writer, by the event store's tracing wrapper, after the writer's metadata
and before the hash chain takes the event in: it is hashed like every other key, and a verification of the
chain covers it. It names the trace, not the chain: the forwarder publishes the event with it in the
message's \`traceparent\` header, the saga that handles the message works in that trace, and what the saga
appends carries it on. A retry taken up later (a webhook attempt, from its delivery's first event) continues
it too. An idempotent retry of an append keeps the first append's value, as it keeps the first's events.
`;

/** The whole of docs/events.md for the schemas `domain` (the `@tidings/domain` module) exports. */
export function eventCatalogue(domain) {
  const groups = eventGroups(domain);
  const index = [
    "## Streams",
    "",
    "| Category | Stream id | Named by | Events |",
    "|---|---|---|---|",
    ...groups.map(
      (g) =>
        `| [${code(g.category)}](#${g.category}) | ${code(g.example)} | ${code(g.functionName)} | ${g.events.map((e) => eventType(e)).join(", ")} |`,
    ),
    "",
    "Reservation streams (`unique-<team>-<kind>-<sha256 of the value>`, `packages/commands/src/reservation.ts`) hold",
    "`ValueReserved` and `ValueReleased`, each with `data: {ownerId}`; they have no zod schema and are not listed below.",
    "",
    "The event store's own streams `integrity-seals` (`StoreSealed`: a signed seal over the hashes of `$all`) and",
    "`integrity-erasures` (`StreamErased`: the revisions, positions and hashes of a deleted stream's events) are written by",
    "`packages/eventstore/src/integrity`; their fields are in `records.ts` there and [operations](operations.md#integrity).",
    "",
  ];
  const sections = groups.flatMap((g) => [
    `## ${g.category}`,
    "",
    `Streams ${code(g.example)}${g.union ? `; the union ${code(g.union)}` : ""}.`,
    "",
    ...g.events.map(eventSection),
  ]);
  return `${[preface, ...index, ...sections].join("\n").trimEnd()}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const domain = await import("@tidings/domain");
  writeFileSync(catalogueFile, eventCatalogue(domain));
  console.log(`wrote ${catalogueFile.pathname}`);
}
