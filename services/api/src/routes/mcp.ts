import { z } from "zod";
import { TidingsError } from "@tidings/core";
import type { ApiRoutes } from "../app.js";
import type { McpAnswer, McpCall } from "../mcp/mcpServer.js";
import { requireAuth } from "../plugins/auth.js";

const tags = ["mcp"];
const requestId = z.union([z.string().max(200), z.number().int()]);
/** A request, answered with a reply, or a notification, answered 202 with no body; the protocol has had no batches since 2025-06-18. */
const message = z
  .looseObject({
    jsonrpc: z.literal("2.0"),
    id: requestId.optional(),
    method: z.string().min(1).max(200),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((m) => m.id !== undefined || m.method.startsWith("notifications/"), {
    path: ["id"],
    message: "`id` is required: only a `notifications/…` message goes without one.",
  });
/** A JSON-RPC reply: `result`, or `error` (an unknown method, a protocol error) with a 200 all the same. */
const reply = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: requestId.nullable(),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.looseObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
});

/**
 * `POST /mcp`: the MCP server for agents (docs/wire-compatibility.md §6.24), one JSON-RPC message per request,
 * authenticated like every route. The SDK is imported on the first request, not at start: a process that
 * serves no agent never holds it (issue #25's footprint).
 */
export function mcpRoutes(): ApiRoutes {
  return (app) => {
    let handler: Promise<(call: McpCall) => Promise<McpAnswer>> | undefined;
    const load = () =>
      (handler ??= import("../mcp/mcpServer.js").then(
        (module) => module.mcpHandler(app),
        (error: unknown) => {
          handler = undefined;
          throw error;
        },
      ));

    app.post(
      "/mcp",
      { schema: { tags, summary: "Model Context Protocol (Streamable HTTP, stateless)", body: message, response: { 200: reply } } },
      async (request, res) => {
        const { permission } = requireAuth(request);
        const version = request.headers["mcp-protocol-version"];
        const answer = await (
          await load()
        )({
          permission,
          authorization: request.headers.authorization!,
          message: request.body,
          protocolVersion: typeof version === "string" ? version : undefined,
        });
        if (answer.status >= 400) throw new TidingsError("malformed_request", transportRefusal(answer.body));
        if (answer.body === "") {
          // A notification is answered 202 with no body (MCP's Streamable HTTP), which the API's own
          // replies never are (plugins/jsonReplies.ts): it is written past them.
          res.hijack();
          res.raw.writeHead(answer.status, { "x-request-id": request.id });
          res.raw.end();
          return res;
        }
        // The transport's reply is already JSON text: fastify sends a string as it is, without serializing it again.
        return res
          .code(answer.status as 200)
          .type("application/json")
          .send(answer.body as unknown as z.infer<typeof reply>);
      },
    );
  };
}

/** The SDK refuses in JSON-RPC's shape; the API's errors have one shape (docs/wire-compatibility.md §3.1): its message is kept. */
function transportRefusal(body: string): string {
  const refusal = /"message":\s*"((?:[^"\\]|\\.)*)"/.exec(body)?.[1];
  return refusal === undefined ? "The MCP request was refused." : (JSON.parse(`"${refusal}"`) as string);
}
