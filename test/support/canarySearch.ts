import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { gunzipSync } from "node:zlib";
import { connect, ErrorCode, type NatsError, type StoredMsg } from "nats";
import pg from "pg";

/**
 * The canary search of the erasure test (#23): after a person is erased, none of their values (address,
 * names, property values) may be left anywhere, in any of the encodings a store, a message or a log gives
 * them. Callers pass the values; the forms, and how each is matched, are decided here.
 */

export type FormKind = "plain" | "quoted-printable" | "q-encoding" | "url" | "form-url" | "hex" | "base64" | "base64url";

export interface Finding {
  canary: string;
  kind: FormKind;
  /** The encoded text that matched. */
  form: string;
  /** Where it starts in the searched text (a dump, a table's rows, a message's data or headers, a file). */
  index: number;
  /** The searched text from 40 characters before the match to 40 after it. */
  context: string;
  where: Place;
}

export interface Place {
  database?: string;
  /** `schema.table`; absent when a dump holds the value outside any table's data. */
  table?: string;
  stream?: string;
  sequence?: number;
  part?: "data" | "headers";
  path?: string;
}

interface Form {
  kind: FormKind;
  text: string;
  /** Base64 is case-significant: matched case-insensitively, its forms would turn up in unrelated base64. */
  caseSensitive: boolean;
}

// Shorter values have base64 alignments of four or five characters, which unrelated base64 holds by chance.
const shortestCanary = 6;
const contextChars = 40;

/** The distinct texts searched for `value`. */
export function canaryForms(value: string): string[] {
  return formsOf(value).map((form) => form.text);
}

const formCache = new Map<string, Form[]>();

function formsOf(value: string): Form[] {
  const cached = formCache.get(value);
  if (cached) return cached;
  if (value.length < shortestCanary) throw new Error(`canary ${JSON.stringify(value)} is shorter than ${shortestCanary} characters`);
  const forms: Form[] = [{ kind: "plain", text: value, caseSensitive: false }];
  // A store may have changed the value's case before encoding it, and a changed case changes the encoding.
  for (const variant of new Set([value, value.toLowerCase(), value.toUpperCase()])) {
    const insensitive = (kind: FormKind, text: string) => forms.push({ kind, text, caseSensitive: false });
    insensitive("quoted-printable", quotedPrintable(variant));
    insensitive("q-encoding", qEncoding(variant));
    insensitive("url", encodeURIComponent(variant));
    insensitive("form-url", new URLSearchParams([["", variant]]).toString().slice(1));
    insensitive("hex", Buffer.from(variant).toString("hex"));
    for (const lead of [0, 1, 2]) {
      const base64 = base64Aligned(variant, lead);
      forms.push({ kind: "base64", text: base64, caseSensitive: true });
      forms.push({ kind: "base64url", text: base64.replace(/\+/g, "-").replace(/\//g, "_"), caseSensitive: true });
    }
  }
  const seen = new Set<string>();
  const distinct = forms.filter((form) => {
    const lower = `i:${form.text.toLowerCase()}`;
    const key = form.caseSensitive ? `s:${form.text}` : lower;
    if (seen.has(key) || seen.has(lower)) return false;
    seen.add(key);
    return true;
  });
  formCache.set(value, distinct);
  return distinct;
}

/** As nodemailer's body encoding writes it (RFC 2045 6.7): printable ASCII but `=` stays, the rest is `=XX`. */
function quotedPrintable(value: string): string {
  return [...Buffer.from(value)]
    .map((byte) => (byte === 0x09 || (byte >= 0x20 && byte <= 0x7e && byte !== 0x3d) ? String.fromCharCode(byte) : hexEscape(byte)))
    .join("");
}

/** As nodemailer's header words write it (RFC 2047 5 rule 3): also `@`, `.`, `_`… escaped, space as `_`. */
function qEncoding(value: string): string {
  return quotedPrintable(value).replace(/[^a-z0-9!*+\-/=]/gi, (char) => (char === " " ? "_" : hexEscape(char.charCodeAt(0))));
}

const hexEscape = (byte: number) => `=${byte.toString(16).toUpperCase().padStart(2, "0")}`;

/**
 * The value's base64 as it reads inside a larger blob where `lead` bytes (mod 3) come before it: only the
 * characters whose six bits all come from the value, since the edge ones depend on the bytes around it.
 * So a value that differs from a canary only in the edge bits of its first or last byte matches too:
 * canaries differ from other values by more than that.
 */
function base64Aligned(value: string, lead: number): string {
  const bytes = Buffer.concat([Buffer.alloc(lead), Buffer.from(value)]);
  return bytes.toString("base64").slice(Math.ceil((8 * lead) / 6), Math.floor((8 * bytes.length) / 6));
}

/** The haystack with some text removed, and the way back from an index in it to one in the haystack. */
interface View {
  text: string;
  toRaw(index: number): number;
}

function without(raw: string, removed: RegExp): View {
  const viewStarts: number[] = [];
  const rawStarts: number[] = [];
  const kept: string[] = [];
  let length = 0;
  let from = 0;
  const keep = (to: number) => {
    if (to <= from) return;
    viewStarts.push(length);
    rawStarts.push(from);
    kept.push(raw.slice(from, to));
    length += to - from;
  };
  for (const match of raw.matchAll(removed)) {
    keep(match.index);
    from = match.index + match[0].length;
  }
  keep(raw.length);
  const toRaw = (index: number) => {
    let low = 0;
    let high = viewStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (viewStarts[middle]! <= index) low = middle;
      else high = middle - 1;
    }
    return rawStarts[low]! + index - viewStarts[low]!;
  };
  return { text: kept.join(""), toRaw };
}

// A quoted-printable soft line break, and the seam between two adjacent Q-encoded words (RFC 2047 6.2),
// can fall inside a value.
const softBreaks = /=\r?\n|\?=[ \t\r\n]+=\?[^?\s]+\?q\?/gi;
// Base64 bodies are wrapped every 76 characters; stored in a text column, the line breaks read `\r\n`.
const lineBreaks = /\r|\n|\\r|\\n/g;

/** Every occurrence of every form of each canary in the haystack; a Buffer is read as UTF-8. */
export function findCanaries(haystack: string | Buffer, canaries: readonly string[], where: Place = {}): Finding[] {
  const raw = typeof haystack === "string" ? haystack : haystack.toString("utf8");
  const unfolded = without(raw, softBreaks);
  const unbroken = without(raw, lineBreaks);
  const findings: Finding[] = [];
  for (const canary of canaries) {
    for (const form of formsOf(canary)) {
      const view = form.caseSensitive ? unbroken : unfolded;
      const pattern = new RegExp(form.text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), form.caseSensitive ? "g" : "gi");
      for (const match of view.text.matchAll(pattern)) {
        const index = view.toRaw(match.index);
        const end = view.toRaw(match.index + match[0].length - 1) + 1;
        const context = raw.slice(Math.max(0, index - contextChars), end + contextChars);
        findings.push({ canary, kind: form.kind, form: form.text, index, context, where });
      }
    }
  }
  return findings;
}

const run = promisify(execFile);

/** Searches the data of a PostgreSQL server database, as `pg_dump --data-only` writes it. */
export async function searchDatabase(url: string, canaries: readonly string[], options: { pgDump?: string } = {}): Promise<Finding[]> {
  const { stdout: dump } = await run(options.pgDump ?? "/usr/bin/pg_dump", ["--data-only", "--no-password", `--dbname=${url}`], {
    maxBuffer: 1 << 30,
    encoding: "utf8",
  });
  const database = decodeURIComponent(new URL(url).pathname.slice(1));
  const sections = copySections(dump);
  return findCanaries(dump, canaries).map((finding) => {
    const table = sections.find((section) => section.start <= finding.index && finding.index < section.end)?.table;
    return { ...finding, where: table === undefined ? { database } : { database, table } };
  });
}

/** The rows of each table in a dump: from its `COPY … FROM stdin;` line to the `\.` line that ends them. */
function copySections(dump: string): { table: string; start: number; end: number }[] {
  const sections: { table: string; start: number; end: number }[] = [];
  const header = /^COPY (.+?) (?:\(.*\) )?FROM stdin;$/gm;
  for (let match = header.exec(dump); match; match = header.exec(dump)) {
    const start = match.index + match[0].length;
    const terminator = dump.indexOf("\n\\.\n", start);
    const end = terminator < 0 ? dump.length : terminator;
    sections.push({ table: match[1]!.trim(), start, end });
    // A data row could read like a COPY line; the next header comes after this table's rows.
    header.lastIndex = end;
  }
  return sections;
}

/**
 * Dumps and searches every database on the server whose name starts with `namePrefix`. Finding none
 * throws: a search of nothing would pass.
 */
export async function searchAllServerDatabases(
  baseUrl: string,
  canaries: readonly string[],
  options: { namePrefix: string; pgDump?: string },
): Promise<Finding[]> {
  const names = await databaseNames(baseUrl, options.namePrefix);
  if (names.length === 0) throw new Error(`no database on ${baseUrl} has a name starting with ${JSON.stringify(options.namePrefix)}`);
  const findings: Finding[] = [];
  for (const name of names) {
    const url = new URL(baseUrl);
    url.pathname = `/${encodeURIComponent(name)}`;
    try {
      findings.push(...(await searchDatabase(url.toString(), canaries, options)));
    } catch (error) {
      // Other test files drop their databases while this one runs: one gone since the listing held nothing.
      if ((await databaseNames(baseUrl, name)).includes(name)) throw error;
    }
  }
  return findings;
}

async function databaseNames(baseUrl: string, prefix: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      "SELECT datname AS name FROM pg_database WHERE datallowconn AND NOT datistemplate AND starts_with(datname::text, $1) ORDER BY 1",
      [prefix],
    );
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

/**
 * Searches every row of every user table through a query function, for PGlite, where pg_dump cannot run.
 * A bytea column reads as hex in JSON, which the hex forms find.
 */
export async function searchLiveRows(
  query: (sql: string) => Promise<{ rows: unknown[] }>,
  canaries: readonly string[],
): Promise<Finding[]> {
  const { rows: tables } = await query(
    `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
     WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') AND table_schema NOT LIKE 'pg\\_%'
     ORDER BY 1, 2`,
  );
  const findings: Finding[] = [];
  for (const { schema, name } of tables as { schema: string; name: string }[]) {
    // An alias no column is named: `row_to_json(x)` takes a column called x before the row.
    const { rows } = await query(
      `SELECT row_to_json(canary_search_row)::text AS json FROM ${ident(schema)}.${ident(name)} canary_search_row`,
    );
    const haystack = (rows as { json: string }[]).map((row) => row.json).join("\n");
    findings.push(...findCanaries(haystack, canaries, { table: `${schema}.${name}` }));
  }
  return findings;
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Reads every message still stored in each JetStream stream (whose name starts with `streamPrefix`), data
 * and headers, by sequence. Finding no stream throws: a search of nothing would pass.
 */
export async function searchNatsStreams(
  natsUrl: string,
  canaries: readonly string[],
  options: { streamPrefix?: string } = {},
): Promise<Finding[]> {
  const prefix = options.streamPrefix ?? "";
  const nc = await connect({ servers: natsUrl, name: "tidings-canary-search" });
  try {
    const jsm = await nc.jetstreamManager();
    const streams: { name: string; first: number; last: number }[] = [];
    for await (const info of jsm.streams.list()) {
      if (info.config.name.startsWith(prefix))
        streams.push({ name: info.config.name, first: info.state.first_seq, last: info.state.last_seq });
    }
    if (streams.length === 0) throw new Error(`no stream on ${natsUrl} has a name starting with ${JSON.stringify(prefix)}`);
    const findings: Finding[] = [];
    for (const stream of streams) {
      for (let sequence = stream.first; sequence <= stream.last && sequence > 0; sequence++) {
        let message: StoredMsg;
        try {
          message = await jsm.streams.getMessage(stream.name, { seq: sequence });
        } catch (error) {
          if ((error as NatsError).code === ErrorCode.JetStream404NoMessages) continue;
          throw error;
        }
        const where = { stream: stream.name, sequence };
        findings.push(...findCanaries(Buffer.from(message.data), canaries, { ...where, part: "data" }));
        findings.push(...findCanaries(headerText(message), canaries, { ...where, part: "headers" }));
      }
    }
    return findings;
  } finally {
    await nc.close();
  }
}

function headerText(message: StoredMsg): string {
  const lines = [`subject: ${message.subject}`];
  for (const key of message.header.keys()) for (const value of message.header.values(key)) lines.push(`${key}: ${value}`);
  return lines.join("\n");
}

/** Searches every file under `dir` (blobs, logs), gunzipped when its first bytes say gzip. */
export async function searchFiles(dir: string, canaries: readonly string[]): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const path of await filesUnder(dir)) {
    const bytes = await readFile(path);
    findings.push(...findCanaries(gunzippedIfGzip(bytes), canaries, { path }));
  }
  return findings;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? await filesUnder(path) : entry.isFile() ? [path] : [];
    }),
  );
  return nested.flat().sort();
}

function gunzippedIfGzip(bytes: Buffer): Buffer {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  try {
    return gunzipSync(bytes);
  } catch {
    // A file that only starts like gzip (or a truncated one) is searched as it is.
    return bytes;
  }
}

/** The findings as an assertion message: where each is, which canary in which form, and its context. */
export function formatFindings(findings: readonly Finding[], limit = 50): string {
  if (findings.length === 0) return "no canary found";
  const lines = findings.slice(0, limit).map((f) => {
    const where = describePlace(f.where);
    return `- ${where}: ${JSON.stringify(f.canary)} as ${f.kind} ${JSON.stringify(f.form)} at ${f.index}: ${JSON.stringify(f.context)}`;
  });
  if (findings.length > limit) lines.push(`… and ${findings.length - limit} more`);
  return [`${findings.length} canary finding(s):`, ...lines].join("\n");
}

function describePlace(where: Place): string {
  const parts = [
    where.database !== undefined && `database ${where.database}`,
    where.database !== undefined && `table ${where.table ?? "(none: outside table data)"}`,
    where.database === undefined && where.table !== undefined && `table ${where.table}`,
    where.stream !== undefined && `stream ${where.stream}`,
    where.sequence !== undefined && `sequence ${where.sequence}${where.part ? ` (${where.part})` : ""}`,
    where.path !== undefined && `file ${where.path}`,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(", ") : "(haystack)";
}
