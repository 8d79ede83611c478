import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import type { FastifyInstance } from "fastify";

/** An API answer: the body when it succeeded, else the API's own error in words. */
export type ApiAnswer<Body> = { ok: true; status: number; body: Body } | { ok: false; status: number; name: string; message: string };

/** A file a form uploaded, as it arrives: streamed, never held whole. */
export interface UploadedFile {
  field: string;
  filename: string;
  contentType: string;
  content: AsyncIterable<Buffer>;
}

export interface ApiCalls {
  get<Body>(path: string): Promise<ApiAnswer<Body>>;
  send<Body>(method: "POST" | "PATCH" | "DELETE", path: string, body?: unknown): Promise<ApiAnswer<Body>>;
  /** A `multipart/form-data` POST of `fields` and then `file`, as the routes that take a file want it. */
  upload<Body>(path: string, fields: Record<string, string>, file: UploadedFile): Promise<ApiAnswer<Body>>;
}

/** Names the dashboard in the request logs, where its calls show beside every other client's. */
export const dashboardUserAgent = "tidings-dashboard";

/**
 * The public API, called in this process with the session's key (`inject`: no socket, same routes). The
 * dashboard reads and writes nothing else, so it shows a person exactly what an API client with that key
 * gets: the same team scoping, validation, rate limit and request log.
 */
export function apiCalls(app: FastifyInstance, apiKey: string): ApiCalls {
  const call = async <Body>(
    method: "GET" | "POST" | "PATCH" | "DELETE",
    path: string,
    body?: { type: string; payload: string | Readable },
  ): Promise<ApiAnswer<Body>> => {
    const res = await app.inject({
      method,
      url: path,
      headers: {
        authorization: `Bearer ${apiKey}`,
        "user-agent": dashboardUserAgent,
        ...(body === undefined ? {} : { "content-type": body.type }),
      },
      ...(body === undefined ? {} : { payload: body.payload }),
    });
    const parsed = parseJson(res.body);
    if (res.statusCode < 300) return { ok: true, status: res.statusCode, body: parsed as Body };
    const error = (parsed ?? {}) as { name?: unknown; message?: unknown };
    return {
      ok: false,
      status: res.statusCode,
      name: typeof error.name === "string" ? error.name : "application_error",
      message: typeof error.message === "string" ? error.message : `The API answered ${res.statusCode}.`,
    };
  };
  return {
    get: (path) => call("GET", path),
    send: (method, path, body) =>
      call(method, path, body === undefined ? undefined : { type: "application/json", payload: JSON.stringify(body) }),
    upload: (path, fields, file) => {
      const boundary = `tidings-${randomBytes(16).toString("hex")}`;
      return call("POST", path, {
        type: `multipart/form-data; boundary=${boundary}`,
        payload: Readable.from(multipart(boundary, fields, file), { objectMode: false }),
      });
    },
  };
}

/** A quoted value of a part's header: a file name is the browser's, and may hold a quote or a line break. */
const quoted = (value: string) => `"${value.replace(/["\r\n\\]/g, (c) => encodeURIComponent(c))}"`;

/** The body of a `multipart/form-data` request (RFC 7578), the file's bytes passed on as they come. */
async function* multipart(boundary: string, fields: Record<string, string>, file: UploadedFile): AsyncGenerator<Buffer> {
  for (const [name, value] of Object.entries(fields))
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}\r\n\r\n${value}\r\n`);
  yield Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(file.field)}; filename=${quoted(file.filename)}\r\n` +
      `Content-Type: ${file.contentType.replace(/[\r\n]/g, "")}\r\n\r\n`,
  );
  yield* file.content;
  yield Buffer.from(`\r\n--${boundary}--\r\n`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A path with its query, leaving out what is not set: `withQuery("/emails", { limit: 20, after: undefined })`. */
export function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== "") params.set(name, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}
