import { type ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { Resend } from "resend";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeKillingSagas } from "../support/serverModeOnly.js";
import { startSplitRoles, type SplitRoles } from "../support/splitRoles.js";
import { succeeded } from "../support/wire.js";

/**
 * Issue 6: an import whose sagas process is SIGKILLed past its first checkpoint (500 rows) and started
 * again finishes with exact counts, the same row errors, and one contact per address.
 */
describeKillingSagas("contact import crash test", "a contact import with the sagas process killed mid-import", () => {
  let roles: SplitRoles;
  let sagas: ChildProcess | undefined;

  beforeAll(async () => {
    // One row at a time: slow enough for the kill to land between the first checkpoint and the end.
    roles = await startSplitRoles({ CONTACT_IMPORT_ROWS_IN_FLIGHT: "1" });
  });
  afterAll(() => roles?.stop());

  it("ends with exact counts and no duplicate contact", { timeout: 180_000 }, async () => {
    const resend = new Resend(roles.token, { baseUrl: roles.url });
    await succeeded(() => resend.contactProperties.create({ key: "seats", type: "number" }));
    // 1,200 good rows, 20 repeating earlier addresses, 10 with a bad `seats`: 1,230 rows.
    const rows = [
      "email,seats",
      ...Array.from({ length: 1200 }, (_, i) => `crash${i}@example.com,${i}`),
      ...Array.from({ length: 20 }, (_, i) => `crash${i * 7}@example.com,${i}`),
    ];
    for (let i = 0; i < 10; i++) rows.push(`bad${i}@example.com,many`);
    const { id } = await succeeded(() =>
      resend.contacts.imports.create({
        file: new Blob([rows.join("\n")]),
        columnMap: { email: "email", properties: { seats: { column: "seats", type: "number" } } },
        onConflict: "upsert",
      }),
    );

    sagas = roles.startSagas();
    const progress = async () => (await succeeded(() => resend.contacts.imports.get(id))).counts.total;
    const deadline = Date.now() + 120_000;
    while ((await progress()) < 500) {
      if (Date.now() > deadline) throw new Error("the import made no checkpoint");
      await sleep(100);
    }
    // Past the first checkpoint, and some rows into the next stretch.
    await sleep(300);
    await roles.kill(sagas);
    const atKill = await succeeded(() => resend.contacts.imports.get(id));
    expect(atKill.status).toBe("in_progress");

    sagas = roles.startSagas();
    let done = atKill;
    while (done.status !== "completed") {
      if (Date.now() > deadline) throw new Error(`the import is still ${done.status}`);
      await sleep(200);
      done = await succeeded(() => resend.contacts.imports.get(id));
    }
    expect(done.counts).toEqual({ total: 1230, created: 1200, updated: 20, skipped: 0, failed: 10 });
    expect((done as unknown as { errors: { line: number }[] }).errors.map((e) => e.line)).toEqual(
      Array.from({ length: 10 }, (_, i) => 1222 + i),
    );
    const contacts = await succeeded(() => resend.contacts.list());
    expect(contacts.data).toHaveLength(1200);
    expect(new Set(contacts.data.map((c) => c.email)).size).toBe(1200);
  });
});
