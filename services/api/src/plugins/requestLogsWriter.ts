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
    if (this.buffer.length >= this.maxBuffered) {
      this.dropped++;
      return;
    }
    this.buffer.push(entry);
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
      .catch((error: unknown) => this.logger.error({ err: error, lost: batch.length }, "request logs could not be written"));
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
      const rows = entries.slice(start, start + this.maxBatch).map(toRow);
      try {
        await this.insert(rows);
      } catch (error) {
        await this.insertOneByOne(rows, error);
      }
    }
  }

  /** A batch fails as a whole; row by row, only the row that cannot be stored is lost. */
  private async insertOneByOne(rows: Row[], batchError: unknown): Promise<void> {
    let lost = 0;
    let lastError = batchError;
    for (const row of rows) {
      try {
        await this.insert([row]);
      } catch (error) {
        lost++;
        lastError = error;
      }
    }
    if (lost > 0) this.logger.error({ err: lastError, lost, batch: rows.length }, "request logs could not be written");
  }

  private async insert(rows: Row[]): Promise<void> {
    await this.database.db
      .insertInto("api_request_logs")
      .values(rows.map((row) => ({ ...row, request_body: json(row.request_body), response_body: json(row.response_body) })))
      .onConflict((conflict) => conflict.column("id").doNothing())
      .execute();
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
  return {
    id: entry.id,
    team_id: entry.teamId,
    api_key_id: entry.apiKeyId ?? null,
    created_at: formatTimestamp(new Date(Math.floor(entry.arrivedAtMicros / 1000)), entry.arrivedAtMicros % 1000),
    endpoint: entry.endpoint,
    method: entry.method,
    response_status: entry.responseStatus,
    user_agent: entry.userAgent ?? null,
    request_body: storedRequestBody(entry.requestBody),
    response_body: storedReplyBody(entry.replyPayload),
  };
}

const json = (text: string | null) => (text === null ? null : sql`${text}::json`);
