import type { FastifyBaseLogger } from "fastify";
import { sql } from "kysely";
import { formatTimestamp } from "@tidings/core";
import type { Database } from "@tidings/postgres";
import { storedReplyBody, storedRequestBody } from "./requestLogsRedaction.js";

/** One answered request, as the hooks hand it over: raw bodies, redacted only when written. */
export interface RequestLogEntry {
  /** The request id: the log's id, and the `requestId` in the metadata of the events it caused. */
  id: string;
  teamId: string;
  apiKeyId: string | undefined;
  /** When the request arrived, in epoch microseconds (PostgreSQL keeps them; a Date would not). */
  arrivedAtMicros: number;
  endpoint: string;
  method: string;
  responseStatus: number;
  userAgent: string | undefined;
  requestBody: unknown;
  replyPayload: unknown;
}

export interface RequestLogWriterOptions {
  /** How long an entry waits for company before its batch is written. */
  flushIntervalMs?: number;
  /** A batch this large is written at once, without waiting for the interval. */
  maxBatch?: number;
  /**
   * Entries held while the database is slow or down. Beyond this, new entries are dropped (and counted
   * in a warning): request logs are operational records, and losing some beats running out of memory.
   */
  maxBuffered?: number;
}

/**
 * Writes request logs in batches, off the request path: a request only appends to an array. Batches go
 * out every `flushIntervalMs`, or as soon as `maxBatch` entries wait, one batch at a time, each one
 * multi-row INSERT. `close` writes what is left; the app calls it when it closes.
 */
export class RequestLogWriter {
  private buffer: RequestLogEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** Entries pushed and not yet written: the buffer plus the batches queued behind the one being written. */
  private pending = 0;
  private dropped = 0;
  private readonly flushIntervalMs: number;
  private readonly maxBatch: number;
  private readonly maxBuffered: number;

  constructor(
    private readonly database: Database,
    private readonly logger: Pick<FastifyBaseLogger, "warn" | "error">,
    options: RequestLogWriterOptions = {},
  ) {
    this.flushIntervalMs = options.flushIntervalMs ?? 250;
    this.maxBatch = options.maxBatch ?? 500;
    this.maxBuffered = options.maxBuffered ?? 50_000;
  }

  push(entry: RequestLogEntry): void {
    if (this.pending >= this.maxBuffered) {
      this.dropped++;
      return;
    }
    this.buffer.push(entry);
    this.pending++;
    if (this.buffer.length >= this.maxBatch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushIntervalMs).unref();
  }

  /** Resolves once every entry pushed before the call is written (or given up on, and logged). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.buffer;
    this.buffer = [];
    this.writing = this.writing
      .then(() => this.write(batch))
      .catch((error: unknown) => this.logger.error({ err: error, lost: batch.length }, "request logs could not be written"))
      .finally(() => {
        this.pending -= batch.length;
      });
    return this.writing;
  }

  close(): Promise<void> {
    return this.flush();
  }

  private async write(entries: RequestLogEntry[]): Promise<void> {
    if (this.dropped > 0) {
      this.logger.warn({ dropped: this.dropped }, "request logs dropped: the database did not keep up");
      this.dropped = 0;
    }
    for (let start = 0; start < entries.length; start += this.maxBatch) {
      const rows = entries.slice(start, start + this.maxBatch).map((entry) => this.rowOf(entry));
      try {
        await this.insert(rows);
      } catch (error) {
        await this.insertOneByOne(rows, error);
      }
    }
  }

  /** An entry whose bodies cannot be turned into a row keeps the rest of its row, not its batch's fate. */
  private rowOf(entry: RequestLogEntry): Row {
    try {
      return toRow(entry);
    } catch (error) {
      this.logger.error({ err: error, requestId: entry.id }, "request log bodies could not be stored; the request is logged without them");
      return withoutBodies(entry);
    }
  }

  /**
   * A batch fails as a whole; row by row, a row that cannot be stored is tried once more without its
   * bodies and user agent, so the request still shows in `GET /logs`, and only a row that fails even so is lost.
   */
  private async insertOneByOne(rows: Row[], batchError: unknown): Promise<void> {
    let lost = 0;
    let lastError = batchError;
    for (const row of rows) {
      try {
        await this.insert([row]);
      } catch {
        try {
          await this.insert([{ ...row, user_agent: null, request_body: null, response_body: null }]);
        } catch (error) {
          lost++;
          lastError = error;
        }
      }
    }
    if (lost > 0) this.logger.error({ err: lastError, lost, batch: rows.length }, "request logs could not be written");
  }

  /**
   * The whole batch travels as one JSON parameter that PostgreSQL unpacks, rather than ten parameters per
   * row: measured about twice as fast on PGlite, where building and binding parameters runs in this thread.
   * The bodies are spliced in as the JSON text they already are. A client may repeat a uuid `x-request-id`,
   * so a log whose id is taken is skipped rather than failing its batch.
   */
  private async insert(rows: Row[]): Promise<void> {
    const batch = `[${rows.map(rowJson).join(",")}]`;
    await sql`
      INSERT INTO api_request_logs (id, team_id, api_key_id, created_at, endpoint, method, response_status, user_agent, request_body, response_body)
      SELECT id, team_id, api_key_id, created_at, endpoint, method, response_status, user_agent, request_body, response_body
      FROM json_populate_recordset(null::api_request_logs, ${batch}::json)
      ON CONFLICT (id) DO NOTHING`.execute(this.database.db);
  }
}

interface Row {
  id: string;
  team_id: string;
  api_key_id: string | null;
  created_at: string;
  endpoint: string;
  method: string;
  response_status: number;
  user_agent: string | null;
  request_body: string | null;
  response_body: string | null;
}

function toRow(entry: RequestLogEntry): Row {
  const row = withoutBodies(entry);
  row.request_body = storedRequestBody(entry.requestBody);
  row.response_body = storedReplyBody(entry.replyPayload);
  return row;
}

function withoutBodies(entry: RequestLogEntry): Row {
  return {
    id: entry.id,
    team_id: entry.teamId,
    api_key_id: entry.apiKeyId ?? null,
    created_at: formatTimestamp(new Date(Math.floor(entry.arrivedAtMicros / 1000)), entry.arrivedAtMicros % 1000),
    endpoint: entry.endpoint,
    method: entry.method,
    response_status: entry.responseStatus,
    user_agent: entry.userAgent ?? null,
    request_body: null,
    response_body: null,
  };
}

/** Written field by field: stringifying the row less its bodies (a rest object) took three times as long, for every request. */
function rowJson(row: Row): string {
  return (
    `{"id":${JSON.stringify(row.id)},"team_id":${JSON.stringify(row.team_id)},"api_key_id":${text(row.api_key_id)},` +
    `"created_at":${JSON.stringify(row.created_at)},"endpoint":${JSON.stringify(row.endpoint)},"method":${JSON.stringify(row.method)},` +
    `"response_status":${row.response_status},"user_agent":${text(row.user_agent)},` +
    `"request_body":${storable(row.request_body)},"response_body":${storable(row.response_body)}}`
  );
}

const text = (value: string | null) => (value === null ? "null" : JSON.stringify(value));

/** A `\u0000` escape that is not itself an escaped backslash followed by `u0000`. */
const nulEscape = /(?<=(?:^|[^\\])(?:\\\\)*)\\u0000/g;

/**
 * PostgreSQL text cannot hold U+0000, and unpacking the batch turns each body into text, so a NUL a
 * client sent is stored as the six characters `\u0000` instead (one such body would fail its batch).
 */
function storable(body: string | null): string {
  if (body === null) return "null";
  return body.includes("\\u0000") ? body.replace(nulEscape, "\\\\u0000") : body;
}
