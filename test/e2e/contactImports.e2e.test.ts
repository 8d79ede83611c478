import { describe, expect, it } from "vitest";
import { serverForFile } from "../support/serverForFile.js";
import { outsideSdkTypes, paced, succeeded, uuid, wireTimestamp } from "../support/wire.js";

/** Contact imports through the SDK (docs/wire-compatibility.md §6.10 and §10.6). */

const file = serverForFile();

async function finished(id: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const item = await succeeded(() => file.resend.contacts.imports.get(id));
    if (item.status === "completed" || item.status === "failed") return item;
    if (Date.now() > deadline) throw new Error(`import ${id} still ${item.status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("resend.contacts.imports", () => {
  it("imports a CSV with good, repeated and bad rows into a segment, with exact counts and row errors", async () => {
    await succeeded(() => file.resend.contactProperties.create({ key: "plan", type: "string" }));
    await succeeded(() => file.resend.contactProperties.create({ key: "seats", type: "number" }));
    const segment = await succeeded(() => file.resend.segments.create({ name: "Imported" }));
    await succeeded(() => file.resend.contacts.create({ email: "known@example.com", firstName: "Known" }));
    const rows = [
      "mail,given,plan,seats,optout",
      ...Array.from({ length: 20 }, (_, i) => `user${i}@example.com,User ${i},pro,${i},no`),
      "user3@example.com,Again,team,30,yes",
      "known@example.com,Known Better,free,1,",
      "broken-address,X,pro,1,no",
      "seats@example.com,Seats,pro,lots,no",
    ];
    const created = await succeeded(() =>
      file.resend.contacts.imports.create({
        file: new Blob([rows.join("\n")], { type: "text/csv" }),
        columnMap: {
          email: "mail",
          firstName: "given",
          unsubscribed: "optout",
          properties: { plan: { column: "plan" }, seats: { column: "seats", type: "number" } },
        },
        onConflict: "upsert",
        segments: [{ id: segment.id }],
      }),
    );
    expect(created).toEqual({ object: "contact_import", id: expect.stringMatching(uuid) });
    const done = await finished(created.id);
    expect(done).toEqual({
      object: "contact_import",
      id: created.id,
      status: "completed",
      created_at: expect.stringMatching(wireTimestamp),
      completed_at: expect.stringMatching(wireTimestamp),
      counts: { total: 24, created: 20, updated: 2, skipped: 0, failed: 2 },
      errors: [
        { line: 24, reason: "invalid email `broken-address`" },
        { line: 25, reason: "property `seats` must be a number, not `lots`" },
      ],
    });
    expect(await succeeded(() => file.resend.contacts.get("user3@example.com"))).toMatchObject({
      first_name: "Again",
      unsubscribed: true,
      properties: { plan: { type: "string", value: "team" }, seats: { type: "number", value: 30 } },
    });
    expect(await succeeded(() => file.resend.contacts.get("known@example.com"))).toMatchObject({ first_name: "Known Better" });
    expect((await succeeded(() => file.resend.contacts.list({ segmentId: segment.id, limit: 100 }))).data).toHaveLength(21);
  });

  it("lists imports: 10 by default, after/before exclusive, and a status filter", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 11; i++)
      ids.push(
        (
          await succeeded(() =>
            file.resend.contacts.imports.create({ file: new Blob([`email\nlist${i}@example.com\n`]), onConflict: "skip" }),
          )
        ).id,
      );
    for (const id of ids) await finished(id);
    const first = await succeeded(() => file.resend.contacts.imports.list());
    expect(first.data).toHaveLength(10);
    expect(first.has_more).toBe(true);
    const page = await succeeded(() => file.resend.contacts.imports.list({ limit: 3, after: ids[10]! }));
    expect(page.data.map((i) => i.id)).toEqual([ids[9], ids[8], ids[7]]);
    const back = await succeeded(() => file.resend.contacts.imports.list({ limit: 2, before: ids[7]! }));
    expect(back.data.map((i) => i.id)).toEqual([ids[9], ids[8]]);
    expect((await succeeded(() => file.resend.contacts.imports.list({ status: "completed", limit: 100 }))).data.map((i) => i.id)).toEqual(
      expect.arrayContaining(ids),
    );
    expect((await succeeded(() => file.resend.contacts.imports.list({ status: "queued" }))).data).toEqual([]);
    const both = await paced(() => outsideSdkTypes.get(file.resend, "/contacts/imports", { after: ids[0]!, before: ids[1]! }));
    expect(both.error).toMatchObject({ name: "validation_error" });
  });
});
