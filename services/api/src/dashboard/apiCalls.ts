import type { FastifyInstance } from "fastify";

/** An API answer: the body when it succeeded, else the API's own error in words. */
export type ApiAnswer<Body> = { ok: true; status: number; body: Body } | { ok: false; status: number; name: string; message: string };

export interface ApiCalls {
  get<Body>(path: string): Promise<ApiAnswer<Body>>;
  send<Body>(method: "POST" | "PATCH" | "DELETE", path: string, body?: unknown): Promise<ApiAnswer<Body>>;
}

/** Names the dashboard in the request logs, where its calls show beside every other client's. */
export const dashboardUserAgent = "tidings-dashboard";

/**
 * The public API, called in this process with the session's key (`inject`: no socket, same routes). The
 * dashboard reads and writes nothing else, so it shows a person exactly what an API client with that key
 * gets: the same team scoping, validation, rate limit and request log.
 */
export function apiCalls(app: FastifyInstance, apiKey: string): ApiCalls {
  const call = async <Body>(method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown): Promise<ApiAnswer<Body>> => {
    const res = await app.inject({
      method,
      url: path,
      headers: {
        authorization: `Bearer ${apiKey}`,
        "user-agent": dashboardUserAgent,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
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
  return { get: (path) => call("GET", path), send: (method, path, body) => call(method, path, body) };
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
