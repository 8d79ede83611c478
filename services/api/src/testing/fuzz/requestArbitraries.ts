import fc from "fast-check";
import type { DocumentedOperation, DocumentedParameter } from "./documentedOperations.js";
import { nearValuesOf, valuesOf, type RefResolver } from "./schemaArbitraries.js";

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

export interface RequestContext {
  /** The headers that authenticate the caller. */
  credentials: Record<string, string>;
  /** Ids of the caller's own resources, by the path's first segment (`/emails`), so that some requests reach them. */
  knownIds: Record<string, readonly string[]>;
  resolve: RefResolver;
}

/** Types a client may send by mistake, or on purpose, instead of the documented one. */
const strayMediaTypes = [
  "text/plain",
  "application/xml",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/json; charset=latin1",
];

/**
 * Requests for one operation, from its entry in the document: path parameters, query, headers and body
 * of the documented shapes most of the time, and of nearly those shapes the rest (a key dropped, a value
 * of another type, a stray media type, a body where none is taken).
 */
export function requestsFor(operation: DocumentedOperation, context: RequestContext): fc.Arbitrary<FuzzRequest> {
  const pathParameters = operation.parameters.filter((p) => p.in === "path");
  const queryParameters = operation.parameters.filter((p) => p.in === "query");
  const headerParameters = operation.parameters.filter((p) => p.in === "header");
  const known = context.knownIds[`/${operation.path.split("/")[1]}`] ?? [];

  const path = fc.tuple(...pathParameters.map((p, i) => pathValuesOf(p, context, i === 0 ? known : []))).map((values) => {
    let url = operation.path;
    pathParameters.forEach((p, i) => (url = url.replace(`{${p.name}}`, encodeURIComponent(values[i]!))));
    return url;
  });
  const query = fc
    .tuple(
      fc.tuple(...queryParameters.map((p) => parameterValuesOf(p, context))),
      fc.option(fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 12 })), { freq: 4 }),
    )
    .map(([values, stray]) => {
      const search = new URLSearchParams();
      queryParameters.forEach((p, i) => values[i] !== undefined && search.append(p.name, values[i]!));
      if (stray) search.append(...stray);
      const text = search.toString();
      return text ? `?${text}` : "";
    });
  const headers = fc
    .tuple(...headerParameters.map((p) => parameterValuesOf(p, context)))
    .map((values) =>
      Object.fromEntries(headerParameters.flatMap((p, i) => (values[i] === undefined ? [] : [[p.name.toLowerCase(), values[i]!]]))),
    );
  return fc.tuple(path, query, headers, bodiesOf(operation, context)).map(([url, search, extra, body]) => ({
    method: operation.method,
    url: `${url}${search}`,
    headers: { ...(operation.public ? {} : context.credentials), ...extra, ...(body ? { "content-type": body.type } : {}) },
    ...(body ? { payload: body.payload } : {}),
  }));
}

function pathValuesOf(parameter: DocumentedParameter, context: RequestContext, known: readonly string[]): fc.Arbitrary<string> {
  const documented = valuesOf(parameter.schema ?? { type: "string" }, context.resolve).map(String);
  // `.` and `..` would be resolved as dot segments on the way: the request would be for another path.
  const undocumented = fc.string({ minLength: 1, maxLength: 20 }).filter((value) => value !== "." && value !== "..");
  const choices = [
    { weight: 3, arbitrary: documented },
    { weight: 1, arbitrary: undocumented },
  ];
  if (known.length > 0) choices.push({ weight: 3, arbitrary: fc.constantFrom(...known) });
  return fc.oneof(...choices);
}

function parameterValuesOf(parameter: DocumentedParameter, context: RequestContext): fc.Arbitrary<string | undefined> {
  const value = fc.oneof(
    { weight: 4, arbitrary: valuesOf(parameter.schema ?? { type: "string" }, context.resolve).map(String) },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  );
  return parameter.required ? value : fc.option(value, { nil: undefined, freq: 2 });
}

interface Body {
  type: string;
  payload: string;
}

function bodiesOf(operation: DocumentedOperation, context: RequestContext): fc.Arbitrary<Body | undefined> {
  const stray = fc.record({
    type: fc.constantFrom(...strayMediaTypes),
    payload: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
  });
  const takesBody = ["POST", "PUT", "PATCH", "DELETE"].includes(operation.method);
  if (!operation.body) {
    const json = fc.jsonValue({ maxDepth: 2 }).map((v) => ({ type: "application/json", payload: JSON.stringify(v) }));
    return takesBody ? fc.option(fc.oneof(json, stray), { nil: undefined, freq: 2 }) : fc.constant(undefined);
  }
  const documented = Object.entries(operation.body).map(([type, schema]) => {
    const valid = valuesOf(schema, context.resolve);
    return fc
      .oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: nearValuesOf(valid) })
      .map((value) => ({ type: mediaTypeOf(type), payload: encode(type, value) }));
  });
  const bodies = fc.oneof({ weight: 8, arbitrary: fc.oneof(...documented) }, { weight: 1, arbitrary: stray });
  return operation.bodyRequired ? bodies : fc.option(bodies, { nil: undefined, freq: 4 });
}

const multipartBoundary = "tidings-fuzz-boundary";

function mediaTypeOf(type: string): string {
  return type === "multipart/form-data" ? `${type}; boundary=${multipartBoundary}` : type;
}

/** A body in the given media type: JSON, a form, or multipart with every field as a part. */
function encode(type: string, value: unknown): string {
  if (type === "application/json") return JSON.stringify(value) ?? "null";
  const fields = value !== null && typeof value === "object" && !Array.isArray(value) ? Object.entries(value) : [["value", value] as const];
  const pairs = fields.flatMap(([key, v]) =>
    (Array.isArray(v) ? v : [v]).map((item) => [key, typeof item === "string" ? item : (JSON.stringify(item) ?? "")] as const),
  );
  if (type === "application/x-www-form-urlencoded") return new URLSearchParams(pairs.map(([k, v]): [string, string] => [k, v])).toString();
  const parts = pairs.map(([key, v]) => {
    const file = key === "file" ? `; filename="contacts.csv"\r\nContent-Type: text/csv` : "";
    return `--${multipartBoundary}\r\nContent-Disposition: form-data; name="${key.replace(/"/g, "")}"${file}\r\n\r\n${v}\r\n`;
  });
  return `${parts.join("")}--${multipartBoundary}--\r\n`;
}
