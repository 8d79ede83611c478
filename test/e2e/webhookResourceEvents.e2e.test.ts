import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { eventTypesAt, verifiedPayload } from "../support/signedWebhooks.js";
import { webhookSuite } from "../support/webhookSuite.js";

/** The contact and domain webhooks, each delivery signed and verified by the SDK. */
describe("contact and domain webhooks", () => {
  const t = webhookSuite({ WEBHOOK_ALLOW_PRIVATE: "true" });

  it("fires contact webhooks for the API's writes, and none for what a CSV import creates or updates (docs/wire-compatibility.md §6.10)", async () => {
    const { receiver, resend, createWebhook } = t;
    const webhook = await createWebhook(`${receiver.url}/contacts`, ["contact.created", "contact.updated", "contact.deleted"]);
    const { data: made } = await resend.contacts.create({ email: "api-made@example.test", firstName: "Ada" });
    const [created] = await receiver.waitFor("/contacts", 1);
    expect(verifiedPayload(resend, created!, webhook.signing_secret)).toEqual({
      type: "contact.created",
      created_at: expect.stringMatching(/Z$/),
      data: {
        id: made!.id,
        audience_id: null,
        segment_ids: [],
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
        email: "api-made@example.test",
        first_name: "Ada",
        unsubscribed: false,
      },
    });
    const { data: started } = await resend.contacts.imports.create({
      file: new Blob(["email,first_name\nimported-1@example.test,One\nimported-2@example.test,Two\napi-made@example.test,Changed\n"]),
      columnMap: { email: "email", firstName: "first_name" },
      onConflict: "upsert",
    });
    for (
      const deadline = Date.now() + 20_000;
      (await resend.contacts.imports.get(started!.id)).data?.status !== "completed";
      await sleep(100)
    )
      if (Date.now() > deadline) throw new Error("the import did not complete");
    await resend.contacts.update({ id: made!.id, lastName: "Lovelace" });
    await resend.contacts.remove(made!.id);
    const received = (await receiver.waitFor("/contacts", 3)).map((r) => verifiedPayload(resend, r, webhook.signing_secret));
    await sleep(500);
    expect(eventTypesAt(receiver, "/contacts")).toEqual(["contact.created", "contact.deleted", "contact.updated"]);
    expect(received.find((p) => p.type === "contact.updated")?.data).toMatchObject({
      id: made!.id,
      first_name: "Changed",
      last_name: "Lovelace",
    });
    expect(received.find((p) => p.type === "contact.deleted")?.data).toMatchObject({ id: made!.id, deleted: true });
  });

  it("fires domain webhooks for a create, a PATCH and a delete, with the domain and its records as of each", async () => {
    const { receiver, resend, createWebhook } = t;
    const webhook = await createWebhook(`${receiver.url}/domains`, ["domain.created", "domain.updated", "domain.deleted"]);
    const { data: made, error } = await resend.domains.create({ name: "hooked.example.test", region: "eu-west-1" });
    expect(error).toBeNull();
    await resend.domains.update({ id: made!.id, openTracking: true });
    await resend.domains.remove(made!.id);
    const received = (await receiver.waitFor("/domains", 3)).map((r) => verifiedPayload(resend, r, webhook.signing_secret));
    await sleep(500);
    expect(eventTypesAt(receiver, "/domains")).toEqual(["domain.created", "domain.deleted", "domain.updated"]);
    const byType = (type: string) => received.find((p) => p.type === type)!.data as { records: { record: string }[] };
    expect(byType("domain.created")).toEqual({
      id: made!.id,
      name: "hooked.example.test",
      status: "not_started",
      created_at: expect.stringMatching(/Z$/),
      region: "eu-west-1",
      // The SDK types only the MX records with a priority.
      records: made!.records.map((r) => {
        const { record, name, type, ttl, status, value, priority } = r as typeof r & { priority?: number };
        return { record, name, type, ttl, status, value, ...(priority === undefined ? {} : { priority }) };
      }),
    });
    // Open tracking adds the tracking subdomain's CNAME, which the update shows and the create did not.
    expect(byType("domain.created").records.map((r) => r.record)).not.toContain("Tracking");
    expect(byType("domain.updated").records.map((r) => r.record)).toContain("Tracking");
    expect(byType("domain.deleted")).toMatchObject({ id: made!.id, name: "hooked.example.test" });
  });
});
