import { describe, it } from "vitest";
import { given, itRefuses, now, otherTeam, teamId } from "../testing/scenario.js";
import { apiKeyDecider, type ApiKeyCommand } from "./decider.js";
import type { ApiKeyEvent } from "./events.js";

const apiKeyId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const tokenHash = "a".repeat(64);

const create = (overrides: Partial<Extract<ApiKeyCommand, { type: "CreateApiKey" }>> = {}): ApiKeyCommand => ({
  type: "CreateApiKey",
  apiKeyId,
  teamId,
  name: "Production",
  permission: "full_access",
  domainId: null,
  tokenHash,
  now,
  ...overrides,
});

const created: ApiKeyEvent = {
  type: "ApiKeyCreated",
  data: { apiKeyId, teamId, name: "Production", permission: "full_access", domainId: null, tokenHash, createdAt: now },
};

describe("api key decider", () => {
  it("creates a key", () => given(apiKeyDecider).when(create()).then([created]));

  it("treats a retried create with the same token as done", () => given(apiKeyDecider, [created]).when(create()).then([]));

  itRefuses(apiKeyDecider, [
    ["rejects a name over 50 characters", create({ name: "x".repeat(51) }), "validation_error", /`name`.*at most 50/],
    ["rejects an empty name", create({ name: "" }), "validation_error", /`name`/],
    ["rejects a name of spaces only", create({ name: "   " }), "validation_error", /`name`/],
    [
      "rejects a domain restriction on a full-access key",
      create({ domainId: "1e2d3c4b-5a69-4877-8665-544332211000" }),
      "validation_error",
      /`domain_id`.*sending_access/,
    ],
  ]);

  it("accepts a domain restriction on a sending key", () =>
    given(apiKeyDecider)
      .when(create({ permission: "sending_access", domainId: "1e2d3c4b-5a69-4877-8665-544332211000" }))
      .then([
        {
          type: "ApiKeyCreated",
          data: { ...created.data, permission: "sending_access", domainId: "1e2d3c4b-5a69-4877-8665-544332211000" },
        } as ApiKeyEvent,
      ]));

  it("renames a key", () =>
    given(apiKeyDecider, [created])
      .when({ type: "RenameApiKey", teamId, name: "Staging" })
      .then([{ type: "ApiKeyRenamed", data: { apiKeyId, name: "Staging" } }]));

  it("does not rename another team's key", () =>
    given(apiKeyDecider, [created])
      .when({ type: "RenameApiKey", teamId: otherTeam, name: "x" })
      .thenError("not_found", "API key not found"));

  it("deletes a key once", () =>
    given(apiKeyDecider, [created])
      .when({ type: "DeleteApiKey", teamId, now })
      .then([{ type: "ApiKeyDeleted", data: { apiKeyId, deletedAt: now } }]));

  it("answers not found for a deleted key", () =>
    given(apiKeyDecider, [created, { type: "ApiKeyDeleted", data: { apiKeyId, deletedAt: now } }])
      .when({ type: "DeleteApiKey", teamId, now })
      .thenError("not_found"));

  it("answers not found for a key that never existed", () =>
    given(apiKeyDecider).when({ type: "RenameApiKey", teamId, name: "x" }).thenError("not_found"));
});
