import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { CatalogRoute } from "../plugins/routeCatalog.js";
import type { McpTool } from "./mcpTools.js";
import { toolInput } from "./toolInputs.js";

const route = (method: string, url: string, schema: Record<string, unknown>, config: CatalogRoute["config"] = {}): CatalogRoute => ({
  method,
  url,
  schema,
  config,
  bodyLimit: undefined,
});
const tool = (extra: Partial<McpTool> = {}): McpTool => ({
  name: "a_tool",
  method: "POST",
  path: "/things/:id",
  description: "A tool.",
  effect: "write",
  ...extra,
});

describe("a tool's input", () => {
  const sendRoute = route(
    "POST",
    "/things/:id/send",
    {
      params: z.object({ id: z.string() }),
      querystring: z.object({ tag: z.array(z.string()).optional() }),
      body: z.object({ scheduled_at: z.string().optional(), note: z.string().optional() }),
      response: { 201: z.object({}) },
    },
    {},
  );

  it("is the route's path parameters, query and body fields in one object, and splits back into them", () => {
    const input = toolInput(tool(), sendRoute);
    expect(Object.keys(input.schema.shape)).toEqual(["id", "tag", "scheduled_at", "note", "idempotency_key"]);
    expect(input.request({ id: "a/b", tag: ["x", "y"], note: "hi", idempotency_key: "k" })).toEqual({
      url: "/things/a%2Fb/send?tag=x&tag=y",
      body: { note: "hi" },
      idempotencyKey: "k",
    });
  });

  it("makes the fields a tool requires required, and refuses an input without them naming the field", () => {
    const input = toolInput(tool({ requires: ["scheduled_at"] }), sendRoute);
    const parsed = input.schema.safeParse({ id: "x" });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path)).toEqual([["scheduled_at"]]);
  });

  it("puts a body that is not an object under the tool's key, and sends it as the whole body", () => {
    const batch = route(
      "POST",
      "/things/batch",
      { body: z.array(z.object({ to: z.string() })), response: { 200: z.object({}) } },
      {
        idempotency: true,
      },
    );
    const input = toolInput(tool({ bodyKey: "things" }), batch);
    expect(input.request({ things: [{ to: "a" }] })).toEqual({ url: "/things/batch", body: [{ to: "a" }], idempotencyKey: undefined });
    expect(() => toolInput(tool(), batch)).toThrow(/bodyKey/);
  });

  it("offers no idempotency key where the route honours none: a read, or a POST that neither creates nor opts in", () => {
    const read = route("GET", "/things", { querystring: z.object({ limit: z.number().optional() }), response: { 200: z.object({}) } });
    expect(Object.keys(toolInput(tool({ method: "GET" }), read).schema.shape)).toEqual(["limit"]);
    const verify = route("POST", "/things/:id/verify", { params: z.object({ id: z.string() }), response: { 200: z.object({}) } });
    expect(Object.keys(toolInput(tool(), verify).schema.shape)).toEqual(["id"]);
    expect(toolInput(tool(), verify).request({ id: "x" }).body).toBeUndefined();
  });
});
