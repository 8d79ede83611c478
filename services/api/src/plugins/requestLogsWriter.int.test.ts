import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { newId } from "@tidings/core";
import { migrate } from "@tidings/postgres";
import { testDatabaseForFile } from "@tidings/postgres/testing";
import { apiMigrations } from "../apiMigrations.js";
import { capturingLogger } from "../testing/capturingLogger.js";
import { storedRequestLog } from "../testing/requestLogRows.js";
import { RequestLogWriter } from "./requestLogsWriter.js";

const test = testDatabaseForFile();
beforeAll(() => migrate(test.database, "api", apiMigrations));

describe("RequestLogWriter", () => {
  const entry = (teamId: string) => ({
    id: newId(),
    teamId,
    apiKeyId: undefined,
    arrivedAtMicros: Date.now() * 1000,
    endpoint: "/emails",
    method: "POST",
    responseStatus: 200,
    userAgent: undefined,
    requestBody: { to: "a@example.com" },
    replyPayload: '{"id":"x"}',
  });
  const countFor = async (teamId: string) =>
    Number(
      (await sql<{ n: string }>`SELECT count(*)::text AS n FROM api_request_logs WHERE team_id = ${teamId}`.execute(test.database.db))
        .rows[0]!.n,
    );

  it("writes nothing on the request path, then a full batch at once, and the rest when closed", async () => {
    const team = newId();
    const writer = new RequestLogWriter(test.database, capturingLogger("warn").logger, { flushIntervalMs: 60_000, maxBatch: 10 });
    for (let i = 0; i < 5; i++) writer.push(entry(team));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await countFor(team)).toBe(0);
    for (let i = 0; i < 5; i++) writer.push(entry(team));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await countFor(team)).toBe(10);
    for (let i = 0; i < 3; i++) writer.push(entry(team));
    await writer.close();
    expect(await countFor(team)).toBe(13);
  });

  it("drops new entries, with a warning, once the database is that far behind", async () => {
    const team = newId();
    const { logger, lines } = capturingLogger("warn");
    const writer = new RequestLogWriter(test.database, logger, { flushIntervalMs: 60_000, maxBatch: 2, maxBuffered: 5 });
    for (let i = 0; i < 8; i++) writer.push(entry(team));
    await writer.close();
    writer.push(entry(team));
    await writer.close();
    expect(await countFor(team)).toBe(6);
    expect(lines().some((line) => line.msg === "request logs dropped: the database did not keep up" && line.dropped === 3)).toBe(true);
  });

  it("keeps a row the database refuses, without its bodies, and the rest of its batch whole", async () => {
    const team = newId();
    const { logger } = capturingLogger("warn");
    const writer = new RequestLogWriter(test.database, logger, { flushIntervalMs: 60_000 });
    const refused = { ...entry(team), replyPayload: "not json" };
    writer.push(entry(team));
    writer.push(refused);
    writer.push(entry(team));
    await writer.close();
    expect(await countFor(team)).toBe(3);
    expect(JSON.parse(await storedRequestLog(test.database, refused.id))).toMatchObject({
      method: "POST",
      endpoint: "/emails",
      response_status: 200,
      request_body: null,
      response_body: null,
    });
  });

  it("keeps an entry whose body cannot be serialised, without its bodies, and the rest of its batch whole", async () => {
    const team = newId();
    const { logger, lines } = capturingLogger("warn");
    const writer = new RequestLogWriter(test.database, logger, { flushIntervalMs: 60_000 });
    const odd = { ...entry(team), requestBody: { count: 10n } };
    const neighbours = [entry(team), entry(team)];
    writer.push(neighbours[0]!);
    writer.push(odd);
    writer.push(neighbours[1]!);
    await writer.close();
    expect(await countFor(team)).toBe(3);
    expect(JSON.parse(await storedRequestLog(test.database, odd.id))).toMatchObject({
      method: "POST",
      response_status: 200,
      request_body: null,
    });
    for (const { id } of neighbours)
      expect(JSON.parse(await storedRequestLog(test.database, id)).request_body).toEqual({ to: "a@example.com" });
    expect(
      lines().some(
        (line) => line.msg === "request log bodies could not be stored; the request is logged without them" && line.requestId === odd.id,
      ),
    ).toBe(true);
  });
});
