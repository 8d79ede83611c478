import { setTimeout as sleep } from "node:timers/promises";

/** Resend's default: 10 requests a second per team (docs/wire-compatibility.md §4). */
export const DEFAULT_SOURCE_RATE = 10;

/** A source's page size: Resend's largest. */
const PAGE_SIZE = 100;
/** Attempts of one request that met a network error or a 5xx; a 429 waits as told and does not count. */
const ATTEMPTS = 4;

/** What the source answered with something other than 2xx (and not a 429 to wait out). */
export class SourceApiError extends Error {
  override readonly name = "SourceApiError";
  constructor(
    readonly status: number,
    readonly path: string,
    body: string,
  ) {
    super(`${path}: ${status} ${body.slice(0, 300)}`);
  }
}

export interface SourceApi {
  /** One resource, or undefined when the source says 404. */
  get<T>(path: string): Promise<T | undefined>;
  /** Every item of a list, page by page (`limit`, `after`, `has_more`). */
  list<T extends { id: string }>(path: string): Promise<T[]>;
  /** Requests sent so far, and 429s met (each waited out and sent again). */
  readonly counts: { requests: number; rateLimited: number };
}

export interface SourceApiOptions {
  baseUrl: string;
  key: string;
  /** Requests a second, at most; `retry-after` on a 429 is honoured on top. */
  rate: number;
  fetch?: typeof fetch;
}

/**
 * A Resend-compatible API read with plain fetch, one request at a time and each at least 1/rate s after
 * the one before: a token bucket of `rate` a second (Resend's and ours) never runs dry at that pace, so
 * the source refuses nothing and the migration's reads leave the team's other clients their share.
 */
export function sourceApi(options: SourceApiOptions): SourceApi {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  const spacingMs = 1000 / options.rate;
  const counts = { requests: 0, rateLimited: 0 };
  let nextAt = 0;

  const paced = async () => {
    const wait = nextAt - performance.now();
    if (wait > 0) await sleep(wait);
    nextAt = performance.now() + spacingMs;
  };

  const request = async (path: string): Promise<Response> => {
    for (let attempt = 1; ; attempt++) {
      await paced();
      counts.requests++;
      let response: Response;
      try {
        response = await doFetch(`${base}${path}`, {
          headers: { authorization: `Bearer ${options.key}`, accept: "application/json", "user-agent": "tidings-migrate" },
          signal: AbortSignal.timeout(30_000),
        });
      } catch (error) {
        if (attempt >= ATTEMPTS) throw error;
        await sleep(500 * 2 ** attempt);
        continue;
      }
      if (response.status === 429) {
        counts.rateLimited++;
        await response.body?.cancel();
        await sleep(retryAfterMs(response.headers.get("retry-after")));
        attempt--;
        continue;
      }
      if (response.status >= 500 && attempt < ATTEMPTS) {
        await response.body?.cancel();
        await sleep(500 * 2 ** attempt);
        continue;
      }
      return response;
    }
  };

  const json = async <T>(path: string): Promise<T | undefined> => {
    const response = await request(path);
    if (response.status === 404) {
      await response.body?.cancel();
      return undefined;
    }
    if (!response.ok) throw new SourceApiError(response.status, path, await response.text());
    return (await response.json()) as T;
  };

  return {
    counts,
    get: json,
    async list<T extends { id: string }>(path: string): Promise<T[]> {
      const items: T[] = [];
      for (let after: string | undefined; ;) {
        const query = new URLSearchParams({ limit: String(PAGE_SIZE), ...(after ? { after } : {}) });
        const page = await json<{ data: T[]; has_more?: boolean }>(`${path}?${query}`);
        if (!page) throw new SourceApiError(404, path, "not found");
        items.push(...page.data);
        if (!page.has_more || page.data.length === 0) return items;
        after = page.data[page.data.length - 1]!.id;
      }
    },
  };
}

/** `retry-after` in seconds or as an HTTP date; a second when it says nothing usable. */
export function retryAfterMs(header: string | null, now = Date.now()): number {
  if (header !== null) {
    const seconds = Number(header);
    if (header.trim() !== "" && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const at = Date.parse(header);
    if (Number.isFinite(at)) return Math.max(0, at - now);
  }
  return 1000;
}
