import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { apiTestFile } from "../testing/apiTestFile.js";

const file = apiTestFile("erasure");
const { call } = file;

/** The team's stored request log, each row as one lower-case text: what a search of the table would find. */
async function storedRows(teamId: string): Promise<{ endpoint: string; method: string; text: string }[]> {
  await file.app.requestLogs.flush();
  const { rows } = await sql<{ endpoint: string; method: string; text: string }>`
    SELECT endpoint, method, lower(concat_ws(' ', endpoint, request_body::text, response_body::text)) AS text
      FROM api_request_logs WHERE team_id = ${teamId} ORDER BY created_at`.execute(file.testServices.test.database.db);
  return rows;
}

describe("erasing a contact reaches the stored request log", () => {
  it("redacts the bodies of every request of the team that names the contact, by id or address, and keeps the rows", async () => {
    const address = "Canary.Person@Example.com";
    const created = await call("POST", "/contacts", { email: address, first_name: "Canaryfirst" });
    expect(created.status).toBe(201);
    expect((await call("PATCH", `/contacts/${created.body.id}`, { last_name: "Canarylast" })).status).toBe(200);
    expect((await call("GET", `/contacts/${encodeURIComponent(address.toLowerCase())}`)).status).toBe(200);
    expect((await call("POST", "/contacts", { email: address }, file.other)).status).toBe(201);
    const before = await storedRows(file.admin.teamId);
    expect(before.filter((row) => row.text.includes("canary"))).toHaveLength(3);

    expect((await call("DELETE", `/contacts/${address}`)).body).toEqual({ object: "contact", contact: address, deleted: true });

    const after = await storedRows(file.admin.teamId);
    expect(after.map((row) => row.method)).toEqual([...before.map((row) => row.method), "DELETE"]);
    expect(after.filter((row) => row.text.includes("canary"))).toEqual([]);
    expect(after.at(-1)!.endpoint).toBe("/contacts/[address]");
    // Another team's requests name only its own contact, who was not erased.
    expect((await storedRows(file.other.teamId)).filter((row) => row.text.includes("canary"))).toHaveLength(1);
  });
});
