import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { JsonSchema } from "../jsonSchema.js";

export interface DocumentedParameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema?: JsonSchema;
}

interface DocumentedResponse {
  content?: Record<string, { schema?: JsonSchema }>;
}

export interface DocumentedOperation {
  method: string;
  /** The document's path template: `/emails/{id}`. */
  path: string;
  parameters: DocumentedParameter[];
  /** The request body's schema per media type, when the operation takes one. */
  body: Record<string, JsonSchema> | undefined;
  bodyRequired: boolean;
  responses: Record<string, DocumentedResponse>;
  public: boolean;
}

export interface OpenApi {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: DocumentedParameter[];
        requestBody?: { required?: boolean; content: Record<string, { schema?: JsonSchema }> };
        responses: Record<string, DocumentedResponse>;
        security?: unknown[];
      }
    >
  >;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** Every operation of the document, in its order. */
export function documentedOperations(document: OpenApi): DocumentedOperation[] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      parameters: operation.parameters ?? [],
      body:
        operation.requestBody &&
        Object.fromEntries(Object.entries(operation.requestBody.content).map(([type, media]) => [type, media.schema ?? {}])),
      bodyRequired: operation.requestBody?.required ?? false,
      responses: operation.responses,
      public: Array.isArray(operation.security) && operation.security.length === 0,
    })),
  );
}

export interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/**
 * Holds answers to what the document says of them: the status is one the operation lists, the media
 * type one listed for that status, a JSON body validates against its schema (Ajv, JSON Schema 2020-12,
 * the document's dialect), and an error body is `{statusCode, message, name}` with the answer's status.
 */
export function answerChecker(document: OpenApi) {
  const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: false });
  addFormats.default(ajv);
  ajv.addSchema(document as object, "openapi");
  const compiled = new Map<string, ValidateFunction>();
  const validatorAt = (pointer: string[]) => {
    const ref = `openapi#/${pointer.map((part) => encodeURIComponent(part.replace(/~/g, "~0").replace(/\//g, "~1"))).join("/")}`;
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      compiled.set(ref, validate);
    }
    return validate;
  };

  /** Why the answer disagrees with the document, or undefined when it agrees. */
  return (operation: DocumentedOperation, answer: Answer): string | undefined => {
    const { status } = answer;
    if (status >= 500) return `a server error ${status}`;
    const documented = operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`] ?? operation.responses.default;
    if (!documented) return `status ${status} is not documented (${Object.keys(operation.responses).join(", ")})`;
    const mediaType = answer.contentType.split(";")[0]!.trim().toLowerCase();
    const listed = Object.keys(documented.content ?? {});
    const match =
      listed.find((type) => type === mediaType) ??
      listed.find((type) => type === `${mediaType.split("/")[0]}/*`) ??
      listed.find((type) => type === "*/*");
    if (!match)
      return listed.length === 0 && answer.body === ""
        ? undefined
        : `media type \`${mediaType}\` is not documented for ${status} (${listed.join(", ") || "none"})`;
    if (documented.content?.[match]?.schema === undefined) return undefined;
    let parsed: unknown;
    if (mediaType === "application/json") {
      try {
        parsed = JSON.parse(answer.body);
      } catch {
        return `the body is not JSON: ${answer.body.slice(0, 80)}`;
      }
      if (status >= 400) {
        const error = parsed as Record<string, unknown>;
        if (Object.keys(error).sort().join() !== "message,name,statusCode" || error.statusCode !== status)
          return "the error body is not {statusCode, message, name} with the answer's status";
      }
    } else {
      parsed = answer.body;
    }
    const validate = validatorAt([
      "paths",
      operation.path,
      operation.method.toLowerCase(),
      "responses",
      documentedStatus(operation, status),
      "content",
      match,
      "schema",
    ]);
    if (!validate(parsed)) {
      const [first] = validate.errors ?? [];
      return `the body disagrees with the documented schema at \`${first?.instancePath || "/"}\`: ${first?.message ?? "invalid"}`;
    }
    return undefined;
  };
}

function documentedStatus(operation: DocumentedOperation, status: number): string {
  const exact = String(status);
  if (operation.responses[exact]) return exact;
  const range = `${exact[0]}XX`;
  return operation.responses[range] ? range : "default";
}
