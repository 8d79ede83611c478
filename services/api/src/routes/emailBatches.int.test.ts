import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { releaseIdempotencyKey } from "../plugins/idempotencyStore.js";
import { apiTestFile } from "../testing/apiTestFile.js";
import { anEmail as email } from "../testing/emailRequests.js";
import { wireError as error } from "../testing/jsonCalls.js";
import type { TestKey } from "../testing/testServices.js";

const file = apiTestFile("emails");
const { call } = file;

describe("POST /emails/batch", () => {
  const count = async (key: TestKey) => (await call("GET", "/emails?limit=100", undefined, key)).body.data.length;

  it("sends every email of a valid batch, in order", async () => {
    const batcher = await file.testServices.aKey("batch-team-1");
    const res = await call("POST", "/emails/batch", [email({ subject: "one" }), email({ subject: "two" })], batcher);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
    const subjects = await Promise.all(
      res.body.data.map(async (d: { id: string }) => (await call("GET", `/emails/${d.id}`, undefined, batcher)).body.subject),
    );
    expect(subjects).toEqual(["one", "two"]);
  });

  it("strict: one invalid email refuses the whole batch and sends nothing", async () => {
    const batcher = await file.testServices.aKey("batch-team-2");
    const res = await call("POST", "/emails/batch", [email(), email({ from: "nope" })], batcher, { "x-batch-validation": "strict" });
    expect(res).toMatchObject(error(422, "invalid_from_address", /^Email 1: Invalid `from` field/));
    expect(await count(batcher)).toBe(0);
  });

  it("permissive: sends the valid emails and reports the others by index", async () => {
    const batcher = await file.testServices.aKey("batch-team-3");
    const res = await call(
      "POST",
      "/emails/batch",
      [email({ to: [] }), email(), email({ attachments: [{ content: "aGk=", filename: "a.txt" }] })],
      batcher,
      {
        "x-batch-validation": "permissive",
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.errors).toEqual([
      { index: 0, message: "Missing `to` field." },
      { index: 2, message: "`attachments` is not supported in batch sends." },
    ]);
    expect(await count(batcher)).toBe(1);
  });

  // A process killed between recording a batch's emails and storing its answer leaves the key reserved
  // and unanswered; a minute later it is abandoned, and the client's retry with the key runs again.
  it("answers the retry of a batch whose first run died after recording it with the same ids, and queues nothing twice", async () => {
    const batcher = await file.testServices.aKey("batch-team-died");
    const batch = [email({ subject: "one" }), email({ subject: "two" })];
    const first = await call("POST", "/emails/batch", batch, batcher, { "idempotency-key": "died-after-recording" });
    expect(first.status).toBe(200);
    await sql`UPDATE api_idempotency_keys SET response_status = NULL, response_body = NULL, reserved_at = now() - interval '1 hour'
               WHERE key = 'died-after-recording'`.execute(file.testServices.test.database.db);
    const retried = await call("POST", "/emails/batch", batch, batcher, { "idempotency-key": "died-after-recording" });
    expect(retried.status).toBe(200);
    expect(retried.body.data).toEqual(first.body.data);
    expect(await count(batcher)).toBe(2);
  });

  // The database dropping the connection during the commit answers 503, and the key is released for the
  // retry, though the emails may have been recorded.
  it("answers the retry of a send released after it recorded its email with the same id", async () => {
    const sender = await file.testServices.aKey("send-team-released");
    const first = await call("POST", "/emails", email(), sender, { "idempotency-key": "released-after-recording" });
    const { rows } = await sql<{
      owner: string;
    }>`SELECT owner_request_id AS owner FROM api_idempotency_keys WHERE key = 'released-after-recording'`.execute(
      file.testServices.test.database.db,
    );
    await releaseIdempotencyKey(
      file.testServices.test.database,
      { teamId: sender.teamId, method: "POST", path: "/emails", key: "released-after-recording" },
      rows[0]!.owner,
    );
    const retried = await call("POST", "/emails", email(), sender, { "idempotency-key": "released-after-recording" });
    expect(retried.status).toBe(200);
    expect(retried.body.id).toBe(first.body.id);
    expect(await count(sender)).toBe(1);
  });

  it("refuses more than 100 emails", async () => {
    const res = await call(
      "POST",
      "/emails/batch",
      Array.from({ length: 101 }, () => email()),
    );
    expect(res).toMatchObject(error(422, "validation_error", /at most 100 items/));
  });
});
