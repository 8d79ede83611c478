import { sampleValue } from "../sampleRequest.js";
import type { Answer, DocumentedOperation } from "./documentedOperations.js";
import type { FuzzRequest } from "./requestArbitraries.js";

export interface HostileRequest extends FuzzRequest {
  label: string;
  /** Sent over a real connection, because what it tests is the HTTP parser's own limits. */
  overSocket?: boolean;
  /** What the answer must be beyond agreeing with the document, as the reason it is not; undefined when it is. */
  expect?: (answer: Answer & { headers: Record<string, unknown> }) => string | undefined;
}

export interface CorpusContext {
  credentials: Record<string, string>;
  knownIds: Record<string, readonly string[]>;
  /** The operation's body limit in bytes. */
  bodyLimit: number;
  /** The router's longest path parameter. */
  maxParamLength: number;
  /** Every path of the document, to find the fixed paths a template also matches. */
  paths: readonly { path: string; methods: readonly string[] }[];
}

const refused = (answer: Answer) =>
  answer.status >= 400 && answer.status < 500 ? undefined : `expected a 4xx refusal, got ${answer.status}`;
const exactly = (status: number) => (answer: Answer) => (answer.status === status ? undefined : `expected ${status}, got ${answer.status}`);
const not = (status: number) => (answer: Answer) => (answer.status !== status ? undefined : `expected anything but ${status}`);

/** A string field of the body is set to this, then the marker replaced by the hostile text, so that the text lands in a real field. */
const marker = "\u0001hostile\u0001";
const invalidUtf8 = Buffer.from([0xff, 0xfe, 0x28, 0x20, 0x62, 0x61, 0x64]);

/**
 * The fixed corpus every operation gets, whatever its schema: bodies nested past any parser's stack,
 * invalid UTF-8, NUL, lone surrogates, prototype keys, extreme numbers, bodies one byte under and over
 * the operation's limit, and over-long path parameters, query strings and headers. Each request names
 * what it tries and, where the answer is certain (a body over the limit is 413), what it must be.
 */
export function hostileRequestsFor(operation: DocumentedOperation, context: CorpusContext): HostileRequest[] {
  const pathParameters = operation.parameters.filter((p) => p.in === "path");
  const known = context.knownIds[`/${operation.path.split("/")[1]}`] ?? [];
  const values = pathParameters.map((p, i) =>
    i === 0 && known[0] !== undefined ? known[0] : String(sampleValue(p.schema ?? { type: "string" })),
  );
  const pathWith = (replace?: { index: number; raw: string }) =>
    pathParameters.reduce(
      (url, p, i) => url.replace(`{${p.name}}`, replace?.index === i ? replace.raw : encodeURIComponent(values[i]!)),
      operation.path,
    );
  const headers = operation.public ? {} : context.credentials;
  const request = (label: string, extra: Partial<HostileRequest> = {}): HostileRequest => ({
    label,
    method: operation.method,
    url: pathWith(),
    headers,
    ...extra,
  });
  const json = (label: string, payload: string | Buffer, expect?: HostileRequest["expect"]): HostileRequest =>
    request(label, { headers: { ...headers, "content-type": "application/json" }, payload, ...(expect ? { expect } : {}) });

  const corpus: HostileRequest[] = [];
  if (["POST", "PUT", "PATCH", "DELETE"].includes(operation.method)) {
    const sample = sampleValue(operation.body?.["application/json"] ?? { type: "object" });
    // The limits are sent in the operation's own media type: another one is refused (415) whatever its size.
    const mediaType = Object.keys(operation.body ?? {})[0] ?? "application/json";
    const [before, after] = JSON.stringify(withStringLeaf(sample, marker)).split(JSON.stringify(marker).slice(1, -1)) as [string, string];
    const withText = (text: string) => `${before}${text}${after}`;
    corpus.push(
      json("an array body nested 8,000 deep", `${"[".repeat(8000)}${"]".repeat(8000)}`, refused),
      json("an object body nested 5,000 deep", `${'{"a":'.repeat(5000)}null${"}".repeat(5000)}`, refused),
      json("invalid UTF-8 in a body string", Buffer.concat([Buffer.from(before), invalidUtf8, Buffer.from(after)]), refused),
      json("a NUL in a body string", withText("a\\u0000b"), refused),
      json("a lone surrogate in a body string", withText("\\ud800"), refused),
      json("a `__proto__` key", withKey(sample, '"__proto__":{"polluted":true}'), refused),
      json("a `constructor.prototype` key", withKey(sample, '"constructor":{"prototype":{"polluted":true}}'), refused),
      ...["1e308", "-0", "-1e308", "1e-320", "1e309"].flatMap((number) => [
        json(`the body ${number}`, number),
        json(`${number} in every number field`, JSON.stringify(withNumbers(sample, 7.77)).replaceAll("7.77", number)),
      ]),
      ...[
        { size: context.bodyLimit, label: "the limit", expect: not(413) },
        { size: context.bodyLimit + 1, label: "one over the limit", expect: exactly(413) },
      ].map(({ size, label, expect }) => {
        const body = padded(mediaType, sample, size);
        return request(`a body of ${size} bytes, ${label}`, {
          headers: { ...headers, "content-type": body.type },
          payload: body.payload,
          expect,
        });
      }),
    );
  }
  pathParameters.forEach((p, index) => {
    // The router's limit, or the parameter's own where it is shorter; a wildcard (a signed token) has only its own.
    const limit = typeof p.schema?.maxLength === "number" ? p.schema.maxLength : context.maxParamLength;
    corpus.push(
      request(`path parameter \`${p.name}\` of ${limit + 1} characters, one over its limit`, {
        url: pathWith({ index, raw: "a".repeat(limit + 1) }),
        expect: refused,
      }),
      request(`path parameter \`${p.name}\` of ${limit} characters, its limit`, { url: pathWith({ index, raw: "a".repeat(limit) }) }),
      request(`a NUL in path parameter \`${p.name}\``, { url: pathWith({ index, raw: "a%00b" }), expect: refused }),
      request(`a lone surrogate in path parameter \`${p.name}\``, { url: pathWith({ index, raw: "a%ED%A0%80" }), expect: refused }),
      ...fixedSiblings(operation, index, context.paths).map((segment) =>
        request(`the fixed path segment \`${segment}\` as \`${p.name}\``, {
          url: pathWith({ index, raw: segment }),
          expect: methodNotAllowed,
        }),
      ),
    );
  });
  const query = operation.parameters.find((p) => p.in === "query")?.name ?? "q";
  // In a path parameter where there is one; Node's parser refuses the request line before any route is chosen.
  const filler = "p".repeat(20 * 1024);
  const longPath = pathParameters.length > 0 ? pathWith({ index: 0, raw: filler }) : `${pathWith()}/${filler}`;
  corpus.push(
    request("a NUL in the query", { url: `${pathWith()}?${query}=a%00b`, expect: refused }),
    request("a query value of 10,000 characters", { url: `${pathWith()}?${query}=${"9".repeat(10_000)}` }),
    request("1,000 query parameters", { url: `${pathWith()}?${"a=b&".repeat(1000)}` }),
    request("a query value of 1e308", { url: `${pathWith()}?${query}=1e308` }),
    request("a query value of -0", { url: `${pathWith()}?${query}=-0` }),
    request("a header of 32 KB", { headers: { ...headers, "x-filler": "x".repeat(32 * 1024) }, overSocket: true, expect: exactly(431) }),
    request("a path of 20 KB", { url: longPath, overSocket: true, expect: exactly(431) }),
    request("a query string of 20 KB", { url: `${pathWith()}?${query}=${"q".repeat(20 * 1024)}`, overSocket: true, expect: exactly(431) }),
  );
  return corpus;
}

function methodNotAllowed(answer: Answer & { headers: Record<string, unknown> }): string | undefined {
  if (answer.status !== 405) return `expected 405, got ${answer.status}`;
  return answer.headers.allow ? undefined : "a 405 without an `Allow` header";
}

/** `/emails/batch` for `/emails/{id}` asked with GET: a fixed path of the same shape that does not take this method. */
function fixedSiblings(operation: DocumentedOperation, index: number, paths: CorpusContext["paths"]): string[] {
  const segments = operation.path.split("/");
  const position = segments.map((s, i) => (s.startsWith("{") ? i : -1)).filter((i) => i >= 0)[index]!;
  const found = new Set<string>();
  for (const { path, methods } of paths) {
    const other = path.split("/");
    if (other.length !== segments.length || other[position]!.startsWith("{") || methods.includes(operation.method)) continue;
    if (segments.every((s, i) => s.startsWith("{") || s === other[i]) && other.every((s) => !s.startsWith("{")))
      found.add(other[position]!);
  }
  return [...found];
}

function withStringLeaf(value: unknown, text: string): unknown {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const entries = Object.entries(value);
    const key = entries.find(([, v]) => typeof v === "string")?.[0] ?? "note";
    return { ...value, [key]: text };
  }
  return { note: text };
}

function withNumbers(value: unknown, number: number): unknown {
  if (typeof value === "number") return number;
  if (Array.isArray(value)) return value.map((item) => withNumbers(item, number));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withNumbers(v, number)]));
  return value;
}

function withKey(sample: unknown, member: string): string {
  const text = JSON.stringify(sample !== null && typeof sample === "object" && !Array.isArray(sample) ? sample : {});
  return text === "{}" ? `{${member}}` : `{${member},${text.slice(1)}`;
}

/**
 * A body of the media type, exactly `bytes` long: for JSON, the sample with a padding field. Built as a
 * Buffer around one filled run, so a body of tens of MB costs one allocation here.
 */
function padded(mediaType: string, sample: unknown, bytes: number): { type: string; payload: Buffer } {
  const around = (before: string, after: string) => {
    const fill = Math.max(0, bytes - Buffer.byteLength(before) - Buffer.byteLength(after));
    return Buffer.concat([Buffer.from(before), Buffer.alloc(fill, "x"), Buffer.from(after)]);
  };
  if (mediaType === "application/x-www-form-urlencoded") return { type: mediaType, payload: around("padding=", "") };
  if (mediaType === "multipart/form-data") {
    const payload = around(`--${boundary}\r\nContent-Disposition: form-data; name="padding"\r\n\r\n`, `\r\n--${boundary}--\r\n`);
    return { type: `${mediaType}; boundary=${boundary}`, payload };
  }
  const base = sample !== null && typeof sample === "object" && !Array.isArray(sample) ? sample : {};
  const [before, after] = JSON.stringify({ ...base, padding: "" }).split('"padding":""') as [string, string];
  return { type: "application/json", payload: around(`${before}"padding":"`, `"${after}`) };
}

const boundary = "tidings-hostile-boundary";
