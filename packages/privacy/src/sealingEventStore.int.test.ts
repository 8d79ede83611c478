import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { verifyStore, type EventStore } from "@tidings/eventstore";
import { personalEvents } from "@tidings/domain/testing";
import { testStoreDatabase } from "@tidings/eventstore/testing";
import { createPrivacy, type Privacy } from "./privacy.js";
import { isErasedText } from "./envelope.js";

const secret = "a-test-secret-of-enough-length-0123456789";
const teamId = randomUUID();
const unique = () => randomUUID().slice(0, 8);

const contactCreated = (email: string) =>
  personalEvents.contactCreated(teamId, randomUUID(), { email, firstName: "Alicia", lastName: "Canarywood", plan: "gold-canary" });

const emailQueued = (emailId: string, to: string[]) =>
  personalEvents.emailQueued(teamId, emailId, { to, subject: "Your canary order", html: "<p>Hello canary</p>" });

describe("the sealing event store", () => {
  const file = testStoreDatabase();
  let privacy: Privacy;
  let store: EventStore;
  beforeAll(async () => {
    privacy = await createPrivacy(file.test.database, secret);
    store = privacy.sealing(file.store);
  });
  const stored = (streamId: string) => file.store.readStream(streamId).then((events) => JSON.stringify(events.map((e) => e.data)));

  it("keeps a contact's address, names and properties sealed, and hands them back opened", async () => {
    const email = `alice.${unique()}@example.com`;
    const created = contactCreated(email);
    const stream = `contact-${(created.data as { contactId: string }).contactId}`;
    await store.append(stream, [created], "no_stream");

    const raw = await stored(stream);
    for (const value of [email, "Alicia", "Canarywood", "gold-canary"]) expect(raw).not.toContain(value);
    const [opened] = await store.readStream(stream);
    expect(opened!.data).toMatchObject({ email, firstName: "Alicia", lastName: "Canarywood", properties: { plan: "gold-canary" } });
  });

  it("shows placeholders once the subject is erased, and the hash chain still verifies", async () => {
    const email = `bob.${unique()}@example.com`;
    const created = contactCreated(email);
    const stream = `contact-${(created.data as { contactId: string }).contactId}`;
    await store.append(stream, [created], "no_stream");

    const erased = await privacy.keys.eraseSubject(teamId, privacy.hashSubject(teamId, email));
    expect(erased.subjectKeys).toBe(1);
    const [after] = await store.readStream(stream);
    const data = after!.data as Record<string, unknown>;
    expect(isErasedText(data.email)).toBe(true);
    expect(data.email).toBe(`erased:${privacy.hashSubject(teamId, email).slice(0, 10)}`);
    expect(isErasedText(data.firstName)).toBe(true);
    expect(data.properties).toEqual({});
    expect((await verifyStore(file.store, { streamId: stream })).ok).toBe(true);
    expect(await privacy.keys.eraseSubject(teamId, privacy.hashSubject(teamId, email))).toEqual({
      subjectKeys: 0,
      keyIds: [],
    });
  });

  it("erases one recipient of an email to two: that address and the content go, the other address stays", async () => {
    const [ada, cy] = [`ada.${unique()}@example.com`, `Cy <cy.${unique()}@example.com>`];
    const emailId = randomUUID();
    await store.append(`email-${emailId}`, [emailQueued(emailId, [ada, cy])], "no_stream");
    expect(await stored(`email-${emailId}`)).not.toMatch(/canary/i);

    await privacy.keys.eraseSubject(teamId, privacy.hashSubject(teamId, ada.toUpperCase()));
    const [after] = await store.readStream(`email-${emailId}`);
    const data = after!.data as Record<string, unknown>;
    expect(isErasedText((data.to as string[])[0])).toBe(true);
    expect((data.to as string[])[1]).toBe(cy);
    expect(isErasedText(data.subject)).toBe(true);
    expect(isErasedText(data.html)).toBe(true);
    expect(data.headers).toEqual({});
    expect(data.tags).toEqual([{ name: "kind", value: "order" }]);
  });

  it("expires content by its retention, leaving the addresses readable", async () => {
    const to = `dee.${unique()}@example.com`;
    const emailId = randomUUID();
    await store.append(`email-${emailId}`, [emailQueued(emailId, [to])], "no_stream");

    // Without a retention setting a period lasts a day: a cut two days ahead passes its end.
    expect(await privacy.keys.expire("email", new Date(Date.now() + 2 * 86_400_000))).toBeGreaterThan(0);
    const [after] = await store.readStream(`email-${emailId}`);
    const data = after!.data as Record<string, unknown>;
    expect(data.to).toEqual([to]);
    expect(isErasedText(data.text)).toBe(true);
  });

  it("seals concurrent appends that share recipients, their key requests going together", async () => {
    const shared = `gus.${unique()}@example.com`;
    const emails = Array.from({ length: 24 }, (_, i) => ({ emailId: randomUUID(), to: [shared, `h${i}.${unique()}@example.com`] }));
    await Promise.all(emails.map(({ emailId, to }) => store.append(`email-${emailId}`, [emailQueued(emailId, to)], "no_stream")));

    for (const { emailId, to } of emails) {
      const [queued] = await store.readStream(`email-${emailId}`);
      expect(queued!.data).toMatchObject({ to, subject: "Your canary order" });
    }
    const erased = await privacy.keys.eraseSubject(teamId, privacy.hashSubject(teamId, shared));
    expect(erased.subjectKeys).toBe(1);
    for (const { emailId, to } of emails) {
      const [queued] = await privacy.sealing(file.store).readStream(`email-${emailId}`);
      const data = queued!.data as { to: string[]; subject: string };
      expect(isErasedText(data.to[0]) && isErasedText(data.subject)).toBe(true);
      expect(data.to[1]).toBe(to[1]);
    }
  });

  it("keeps one ciphertext per key in an event: an email to one recipient holds two, the address's and the content's", async () => {
    const emailId = randomUUID();
    await store.append(`email-${emailId}`, [emailQueued(emailId, [`ivy.${unique()}@example.com`])], "no_stream");
    const [raw] = await file.store.readStream(`email-${emailId}`);
    expect((raw!.data as { $sealedGroups: { k: string }[] }).$sealedGroups.map((g) => g.k.slice(0, 2))).toEqual(["s:", "c:"]);
  });

  it("seals an open with the email's content, so erasing the recipient erases where they opened it", async () => {
    const to = `jo.${unique()}@example.com`;
    const emailId = randomUUID();
    const stream = `email-${emailId}`;
    await store.append(stream, [emailQueued(emailId, [to])], "no_stream");
    // A fresh sealing store has not seen the stream: it learns the recipients from the stored events.
    const opened = { emailId, teamId, ipAddress: "203.0.113.9", userAgent: "Canary/1.0", openedAt: new Date().toISOString() };
    await privacy.sealing(file.store).append(stream, [{ id: randomUUID(), type: "EmailOpened", data: opened, metadata: { teamId } }], 0n);
    expect(await stored(stream)).not.toContain("203.0.113.9");
    expect((await store.readStream(stream))[1]!.data).toMatchObject({ ipAddress: "203.0.113.9" });

    await privacy.keys.eraseSubject(teamId, privacy.hashSubject(teamId, to));
    const after = (await privacy.sealing(file.store).readStream(stream))[1]!.data as { ipAddress: string; userAgent: string };
    expect(isErasedText(after.ipAddress) && isErasedText(after.userAgent)).toBe(true);
  });

  it("opens what a subscription delivers", async () => {
    const email = `eve.${unique()}@example.com`;
    const created = contactCreated(email);
    const stream = `contact-${(created.data as { contactId: string }).contactId}`;
    const before = await file.store.headPosition();
    await store.append(stream, [created], "no_stream");
    const subscription = store.subscribeToAll({ after: before, filter: { streamCategory: ["contact"] } });
    for await (const event of subscription) {
      if (event.streamId !== stream) continue;
      expect(event.data).toMatchObject({ email });
      break;
    }
    await subscription.stop();
  });

  it("does not open old values with a key made again for an erased subject", async () => {
    const email = `fay.${unique()}@example.com`;
    const first = contactCreated(email);
    const stream = `contact-${(first.data as { contactId: string }).contactId}`;
    await store.append(stream, [first], "no_stream");
    await privacy.keys.eraseSubject(teamId, privacy.hashSubject(teamId, email));
    await store.append(stream, [{ ...contactCreated(email), type: "ContactUpdated" }], 0n);

    const [old, fresh] = await store.readStream(stream);
    expect(isErasedText((old!.data as { email: string }).email)).toBe(true);
    expect((fresh!.data as { email: string }).email).toBe(email);
  });
});
