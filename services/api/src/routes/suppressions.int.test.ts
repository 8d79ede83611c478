import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sql } from "kysely";
import { handleCommand } from "@tidings/commands";
import { erasedText, subjectTag } from "@tidings/privacy";
import { emailDecider, emailStream } from "@tidings/domain";
import { jsonCaller, wireError } from "../testing/jsonCalls.js";
import { apiTestFile } from "../testing/apiTestFile.js";
import type { TestKey } from "../testing/testServices.js";

const file = apiTestFile("suppressions");
const { call } = file;
const error = wireError;

/** Sends one email and answers what became of it: `queued`, or `suppressed`. */
async function sendTo(to: string, key: TestKey = file.admin): Promise<string> {
  const sent = await call("POST", "/emails", { from: "a@acme.test", to, subject: "Hi", html: "<p>x</p>" }, key);
  expect(sent.status).toBe(200);
  return (await call("GET", `/emails/${sent.body.id}`, undefined, key)).body.last_event;
}

async function bounce(emailId: string, recipient: string) {
  const { position } = await recordBounce(emailId, recipient);
  await file.testServices.services.waitFor(position!);
}

/** The delivery saga's record of a hard bounce, which the suppressions projection turns into a list entry. */
function recordBounce(emailId: string, recipient: string) {
  return handleCommand({
    store: file.testServices.store,
    streamId: emailStream(emailId),
    decider: emailDecider,
    command: {
      type: "RecordDeliveryAttempt",
      results: [{ recipient, kind: "bounced", response: "550 5.1.1 no such user", code: 550 }],
      attempt: 1,
      nextAttemptAt: null,
      now: "2026-11-23 10:00:00.000000+00",
    },
    metadata: { actor: "saga:delivery", teamId: file.admin.teamId },
  });
}

describe("manual suppressions", () => {
  it("stop sends to the address, and removing one lets sending resume", async () => {
    const added = await call("POST", "/suppressions", { email: "Manual@Example.test" });
    expect(added).toEqual({ status: 201, body: { object: "suppression", id: expect.any(String) } });
    expect((await call("GET", `/suppressions/${added.body.id}`)).body).toEqual({
      object: "suppression",
      id: added.body.id,
      email: "manual@example.test",
      origin: "manual",
      source_id: null,
      created_at: expect.stringMatching(/\+00$/),
    });
    expect(await sendTo("manual@example.test")).toBe("suppressed");
    expect(await sendTo("manual@example.test", file.other)).toBe("queued");
    // The same address again is the same suppression.
    expect((await call("POST", "/suppressions", { email: "manual@example.test" })).body.id).toBe(added.body.id);

    expect(await call("DELETE", "/suppressions/MANUAL@example.test")).toEqual({
      status: 200,
      body: { object: "suppression", id: added.body.id, deleted: true },
    });
    expect(await call("GET", `/suppressions/${added.body.id}`)).toEqual(error(404, "not_found", "Suppression not found"));
    expect(await sendTo("manual@example.test")).toBe("queued");
    expect(await call("DELETE", "/suppressions/manual@example.test")).toEqual(error(404, "not_found", "Suppression not found"));
  });

  it("names the field of bad input", async () => {
    expect(await call("POST", "/suppressions", {})).toEqual(error(422, "missing_required_field", "Missing `email` field."));
    expect(await call("POST", "/suppressions", { email: "nope" })).toEqual(error(422, "validation_error", /`email`/));
    expect(await call("GET", "/suppressions?origin=spam")).toEqual(error(422, "validation_error", /`origin`/));
  });

  it("is not visible to another team", async () => {
    const { body } = await call("POST", "/suppressions", { email: "private@example.test" });
    expect(await call("GET", `/suppressions/${body.id}`, undefined, file.other)).toEqual(error(404, "not_found", "Suppression not found"));
    expect(await call("DELETE", `/suppressions/${body.id}`, undefined, file.other)).toEqual(
      error(404, "not_found", "Suppression not found"),
    );
    expect((await call("GET", `/suppressions/${body.id}`)).status).toBe(200);
  });
});

describe("bounce suppressions", () => {
  it("come from a hard bounce with source_id, and removing one lets sending resume", async () => {
    const sent = await call("POST", "/emails", { from: "a@acme.test", to: "Gone <gone@example.test>", subject: "Hi", html: "<p>x</p>" });
    await bounce(sent.body.id, "Gone <gone@example.test>");
    const listed = await call("GET", "/suppressions/gone@example.test");
    expect(listed.body).toMatchObject({ email: "gone@example.test", origin: "bounce", source_id: sent.body.id });
    expect((await call("GET", "/suppressions?origin=bounce")).body.data).toEqual([expect.objectContaining({ id: listed.body.id })]);
    expect((await call("GET", "/suppressions?origin=manual")).body.data.map((s: { email: string }) => s.email)).not.toContain(
      "gone@example.test",
    );
    expect(await sendTo("gone@example.test")).toBe("suppressed");

    expect(await call("DELETE", `/suppressions/${listed.body.id}`)).toEqual({
      status: 200,
      body: { object: "suppression", id: listed.body.id, deleted: true },
    });
    expect(await sendTo("gone@example.test")).toBe("queued");
  });

  it("removes by address a bounce the list has not applied yet", async () => {
    const sent = await call("POST", "/emails", { from: "a@acme.test", to: "late@example.test", subject: "Hi", html: "<p>x</p>" });
    const release = file.testServices.holdProjections();
    try {
      await recordBounce(sent.body.id, "late@example.test");
      // The projections go on once the api waits for them.
      const waiting = { ...file.testServices.services };
      waiting.catchUp = (projections) => (release(), file.testServices.services.catchUp(projections));
      const catchingUp = await file.testServices.app({ services: waiting });
      const removed = await jsonCaller(
        () => catchingUp,
        () => file.admin,
      )("DELETE", "/suppressions/late@example.test");
      expect(removed).toEqual({ status: 200, body: { object: "suppression", id: expect.any(String), deleted: true } });
    } finally {
      release();
    }
    expect(await call("GET", "/suppressions/late@example.test")).toEqual(error(404, "not_found", "Suppression not found"));
    expect(await sendTo("late@example.test")).toBe("queued");
  });

  it("answers 503, removing nothing, when the list cannot catch up to look for an unknown address", async () => {
    const behind = await file.testServices.app({ services: { ...file.testServices.services, catchUp: async () => false } });
    expect(
      await jsonCaller(
        () => behind,
        () => file.admin,
      )("DELETE", "/suppressions/unknown@example.test"),
    ).toEqual(error(503, "service_unavailable", /behind/));
  });
});

describe("an address erased while suppressed", () => {
  /**
   * The row as the list holds it once the address is erased: a placeholder, and the address's keyed hash.
   * Written straight into the read model, as this file's store does not seal (the sealing store's side is
   * projections/src/readmodels/suppressions.int.test.ts).
   */
  async function listErased(address: string): Promise<{ id: string; email: string }> {
    const { teamId } = file.admin;
    const hash = file.testServices.services.hashSubject(teamId, address);
    const row = { id: randomUUID(), email: erasedText(subjectTag(hash)) };
    await sql`INSERT INTO suppressions (team_id, email, email_hash, id, origin, source_id, created_at)
      VALUES (${teamId}, ${row.email}, ${hash}, ${row.id}, 'bounce', NULL, now())`.execute(file.testServices.test.database.db);
    return row;
  }

  it("still stops sends to it, and is found by the address, for its own team only", async () => {
    const row = await listErased("erased-bounced@example.test");
    expect(await sendTo("Erased <Erased-Bounced@example.test>")).toBe("suppressed");
    expect((await call("GET", "/suppressions/erased-bounced@example.test")).body).toMatchObject({ ...row, origin: "bounce" });
    expect(await sendTo("erased-bounced@example.test", file.other)).toBe("queued");
    expect(await call("GET", "/suppressions/erased-bounced@example.test", undefined, file.other)).toEqual(
      error(404, "not_found", "Suppression not found"),
    );
  });

  it("is removed by naming the address, not by its id, which no longer says which address it is", async () => {
    const row = await listErased("erased-removed@example.test");
    expect(await call("DELETE", `/suppressions/${row.id}`)).toEqual(error(422, "validation_error", /erased/));
    expect((await call("DELETE", "/suppressions/erased-removed@example.test")).body).toEqual({
      object: "suppression",
      id: row.id,
      deleted: true,
    });
  });
});

describe("batches", () => {
  it("adds and removes up to 100 addresses", async () => {
    const emails = Array.from({ length: 3 }, (_, i) => `batch-${i}@example.test`);
    const added = await call("POST", "/suppressions/batch/add", { emails });
    expect(added).toEqual({ status: 201, body: { data: emails.map(() => ({ object: "suppression", id: expect.any(String) })) } });
    expect(await sendTo(emails[1]!)).toBe("suppressed");
    const removed = await call("POST", "/suppressions/batch/remove", { ids: [added.body.data[0].id] });
    expect(removed).toEqual({ status: 200, body: { data: [{ object: "suppression", id: added.body.data[0].id, deleted: true }] } });
    const byEmail = await call("POST", "/suppressions/batch/remove", { emails: [emails[1], "never@example.test"] });
    expect(byEmail.body.data).toEqual([
      { object: "suppression", id: added.body.data[1].id, deleted: true },
      { object: "suppression", id: "never@example.test", deleted: false },
    ]);
    expect(await sendTo(emails[1]!)).toBe("queued");
  });

  it("refuses more than 100, or a bad address, naming it and adding nothing", async () => {
    const many = Array.from({ length: 101 }, (_, i) => `m${i}@example.test`);
    expect(await call("POST", "/suppressions/batch/add", { emails: many })).toEqual(
      error(422, "validation_error", "`emails` must hold at most 100 items."),
    );
    expect((await call("POST", "/suppressions/batch/remove", { ids: many })).status).toBe(422);
    expect(await call("POST", "/suppressions/batch/add", { emails: ["fine@example.test", "bad"] })).toEqual(
      error(422, "validation_error", /`emails\[1\]`/),
    );
    expect(await call("GET", "/suppressions/fine@example.test")).toEqual(error(404, "not_found", "Suppression not found"));
    expect(await call("POST", "/suppressions/batch/add", { emails: [] })).toEqual(error(422, "validation_error", /`emails`/));
  });
});
