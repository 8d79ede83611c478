import { request as httpRequest } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, newId } from "@tidings/core";
import type { ApiInstance } from "../../app.js";
import { routerOptions } from "../../router.js";
import { createTeamResources } from "../teamResources.js";
import { createTestServices, testApiSettings, type TestServices } from "../testServices.js";
import { answerChecker, documentedOperations, type Answer, type DocumentedOperation, type OpenApi } from "./documentedOperations.js";
import { hostileRequestsFor, type HostileRequest } from "./hostileCorpus.js";
import { requestsFor, type FuzzRequest, type RequestContext } from "./requestArbitraries.js";
import type { JsonSchema } from "../jsonSchema.js";

/**
 * The fuzz tier: every operation of the OpenAPI document the app serves gets requests generated from its
 * own entry (fast-check), then a fixed corpus of hostile ones, on a real app over PGlite with a
 * full-access key, so handlers are reached. Every answer must agree with the document: no 5xx, a
 * documented status and media type, a body valid against the documented schema, and the error shape
 * with the answer's status. Routes added later are covered without editing this file.
 *
 * The amount of work is a number of requests, not a time box. A run picks a seed and prints it;
 * `TIDINGS_FUZZ_SEED=<seed>` sends the same requests again.
 */

/**
 * Runs per operation: 8 by default, so that `npm test` stays within its time on two cores as routes are added
 * (each run draws a fresh seed, so successive runs cover more); set TIDINGS_FUZZ_RUNS higher for a long run.
 */
const runsPerOperation = Number(process.env.TIDINGS_FUZZ_RUNS ?? 8);
const seed = Number(process.env.TIDINGS_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** Small, so that the import route's own body limit can be sent whole, one byte under and one over. */
const importLimit = 2 * 1024 * 1024;
/**
 * The work is counted in requests; a busy machine makes it slower, not smaller. Each test gets room for
 * that beyond the tier's usual three minutes: with 8 runs, the generated requests took 20 s and the hostile
 * corpus (about 2,700 requests) 60 s on two cores beside a whole CI run, and a CI run with more beside it
 * ran both past 180 s.
 */
const roomyTimeout = 420_000;
/** Findings beyond these are counted, not listed. */
const listedFindings = 60;
const started = Date.now();

let t: TestServices;
let app: ApiInstance;
let port: number;
let document: OpenApi;
let operations: DocumentedOperation[];
let check: ReturnType<typeof answerChecker>;
let context: RequestContext;

interface Finding {
  operation: string;
  sent: string;
  status: number;
  reason: string;
}
const tally = { requests: 0, serverErrors: 0, mismatches: 0 };
const findings: Finding[] = [];

beforeAll(async () => {
  // Sends from any domain, so that a well-shaped send reaches the whole send path instead of stopping at
  // the team's unverified domain.
  t = await createTestServices(
    loadConfig({ ...testApiSettings, CONTACT_IMPORT_MAX_BYTES: String(importLimit), TIDINGS_ALLOW_UNVERIFIED_FROM: "true" }),
  );
  app = await t.app();
  const key = await t.aKey("fuzz-team");
  const other = await t.aKey("fuzz-team", { name: "a key the fuzz may change or delete" });
  const knownIds = Object.fromEntries(
    Object.entries(await createTeamResources(app, key, `fuzz-${newId().slice(0, 8)}`, other.id)).map(([prefix, id]) => [prefix, [id]]),
  );
  await app.listen({ host: "127.0.0.1", port: 0 });
  port = (app.server.address() as { port: number }).port;
  document = (await app.inject({ method: "GET", url: "/openapi.json" })).json() as OpenApi;
  // Deletions last, so that the team's resources they remove serve every other operation first.
  const all = documentedOperations(document);
  operations = [...all.filter((op) => op.method !== "DELETE"), ...all.filter((op) => op.method === "DELETE")];
  check = answerChecker(document);
  context = { credentials: key.headers, knownIds, resolve: refResolver(document) };
});

afterAll(async () => {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    `fuzz: ${tally.requests} requests, ${tally.serverErrors} 5xx, ${tally.mismatches} mismatches against the document, in ${seconds} s (seed ${seed})`,
  );
  await t?.dispose();
});

describe("every documented operation", () => {
  it(
    "answers requests generated from its own document entry as the document says",
    async () => {
      expect(operations.length).toBeGreaterThan(100);
      for (const operation of operations) {
        await fc.assert(
          fc.asyncProperty(requestsFor(operation, context), async (request) => {
            await judge(operation, request, await inject(request));
          }),
          { seed, numRuns: runsPerOperation },
        );
      }
      expect(report(), `seed ${seed}`).toEqual([]);
    },
    roomyTimeout,
  );

  it(
    "refuses the hostile corpus, or answers it as the document says",
    async () => {
      const paths = Object.entries(document.paths).map(([path, methods]) => ({
        path,
        methods: Object.keys(methods).map((m) => m.toUpperCase()),
      }));
      for (const operation of operations) {
        const bodyLimit = catalogBodyLimit(operation);
        for (const request of hostileRequestsFor(operation, {
          ...context,
          bodyLimit,
          maxParamLength: routerOptions.maxParamLength,
          paths,
        })) {
          const answer = request.overSocket ? await overSocket(request) : await inject(request);
          await judge(operation, request, answer);
        }
      }
      expect(report(), `seed ${seed}`).toEqual([]);
    },
    roomyTimeout,
  );
});

async function judge(
  operation: DocumentedOperation,
  request: FuzzRequest | HostileRequest,
  answer: Answer & { headers: Record<string, unknown> },
) {
  tally.requests++;
  if (answer.status >= 500) tally.serverErrors++;
  const reason = check(operation, answer) ?? ("expect" in request ? request.expect?.(answer) : undefined);
  if (!reason) return;
  if (answer.status < 500) tally.mismatches++;
  const sent = "label" in request ? request.label : `${request.url.slice(0, 160)} ${String(request.payload ?? "").slice(0, 160)}`;
  findings.push({
    operation: `${operation.method} ${operation.path}`,
    sent,
    status: answer.status,
    reason: `${reason}: ${answer.body.slice(0, 160)}`,
  });
}

/** The findings so far, one line each, and forgets them: each test reports its own. */
function report(): string[] {
  const lines = findings.splice(0).map((f) => `${f.operation} ← ${f.sent} → ${f.status}: ${f.reason}`);
  return lines.length > listedFindings ? [...lines.slice(0, listedFindings), `… and ${lines.length - listedFindings} more`] : lines;
}

async function inject(request: FuzzRequest): Promise<Answer & { headers: Record<string, unknown> }> {
  const res = await app.inject({
    method: request.method as "GET",
    url: request.url,
    headers: request.headers,
    ...(request.payload === undefined ? {} : { payload: request.payload }),
  });
  return { status: res.statusCode, contentType: String(res.headers["content-type"] ?? ""), body: res.body, headers: res.headers };
}

/** Over a real connection, where Node's HTTP parser applies its limits before fastify sees anything. */
function overSocket(request: FuzzRequest): Promise<Answer & { headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, method: request.method, path: request.url, headers: request.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers["content-type"] ?? ""),
            body: Buffer.concat(chunks).toString(),
            headers: res.headers,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(request.payload);
  });
}

function catalogBodyLimit(operation: DocumentedOperation): number {
  const url = operation.path.replace(/\{(\w+)\}/g, ":$1");
  const route = app.routeCatalog.find((r) => r.method === operation.method && (r.url === url || r.url.replace("*", ":token") === url));
  return route?.bodyLimit ?? app.initialConfig.bodyLimit!;
}

function refResolver(doc: OpenApi) {
  return (ref: string): JsonSchema => {
    const found = ref
      .replace(/^#\//, "")
      .split("/")
      .reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], doc);
    if (!found) throw new Error(`unresolved $ref ${ref}`);
    return found as JsonSchema;
  };
}
