import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { serverForFile } from "../support/serverForFile.js";
import { paced, uuid, wireTimestamp } from "../support/wire.js";

/** The API request log through the official SDK (docs/wire-compatibility.md §6.17), and the rate-limit headers it sees (§4). */

const file = serverForFile();

describe("resend.logs", () => {
  it("get returns a request with its bodies, the new key's token redacted, under the request's id", async () => {
    const created = await paced(() => file.resend.apiKeys.create({ name: "Logged" }));
    expect(created.error).toBeNull();
    const requestId = created.headers!["x-request-id"]!;

    const { data, error } = await paced(() => file.resend.logs.get(requestId));
    expect(error).toBeNull();
    expect(data).toEqual({
      object: "log",
      id: requestId,
      created_at: expect.stringMatching(wireTimestamp),
      endpoint: "/api-keys",
      method: "POST",
      response_status: 201,
      user_agent: expect.stringMatching(/^resend-node/),
      request_body: { name: "Logged" },
      response_body: { object: "api_key", id: created.data!.id, token: "[redacted]" },
    });
    expect(JSON.stringify(data)).not.toContain(created.data!.token);
  });

  it("list returns the team's requests newest first, as list items, and pages with `after`", async () => {
    // A full bucket first: a request refused with 429 is logged too, and would sit between these.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const listed = await paced(() => file.resend.apiKeys.list());
      expect(listed.error).toBeNull();
      ids.push(listed.headers!["x-request-id"]!);
    }
    const { data, error } = await paced(() => file.resend.logs.list({ limit: 2 }));
    expect(error).toBeNull();
    expect(data).toMatchObject({ object: "list", has_more: true });
    expect(data!.data.map((log) => log.id)).toEqual([ids[2], ids[1]]);
    expect(data!.data[0]).toEqual({
      id: ids[2],
      created_at: expect.stringMatching(wireTimestamp),
      endpoint: "/api-keys",
      method: "GET",
      response_status: 200,
      user_agent: expect.stringMatching(/^resend-node/),
    });

    const next = await paced(() => file.resend.logs.list({ limit: 1, after: data!.data[1]!.id }));
    expect(next.data!.data.map((log) => log.id)).toEqual([ids[0]]);
  });

  it("get answers 422 validation_error for an id that is not a UUID, and 404 for an unknown one", async () => {
    const bad = await paced(() => file.resend.logs.get("not-a-uuid"));
    expect(bad.data).toBeNull();
    expect(bad.error).toEqual({ statusCode: 422, name: "validation_error", message: "The `logId` must be a valid UUID." });
    const unknown = await paced(() => file.resend.logs.get(randomUUID()));
    expect(unknown.error).toEqual({ statusCode: 404, name: "not_found", message: "Log not found" });
  });

  it("shows the rate-limit headers of the team's default limit on every answer", async () => {
    const ok = await paced(() => file.resend.logs.list());
    const refused = await paced(() => file.resend.logs.get("not-a-uuid"));
    for (const { headers } of [ok, refused]) {
      expect(headers).toMatchObject({ "ratelimit-limit": "10", "ratelimit-policy": "10;w=1", "ratelimit-reset": "1" });
      expect(Number(headers!["ratelimit-remaining"])).toBeGreaterThanOrEqual(0);
    }
    expect(ok.data!.data.every((log) => uuid.test(log.id))).toBe(true);
  });
});
