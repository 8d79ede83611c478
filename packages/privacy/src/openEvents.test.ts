import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { fromForwardedEvent, toForwardedEvent } from "@tidings/bus";
import { personalEvents } from "@tidings/domain/testing";
import { START, type RecordedEvent } from "@tidings/eventstore";
import type { DataKey, DataKeys } from "./dataKeys.js";
import { groupsField, isErasedText } from "./envelope.js";
import { createKeyring } from "./keyring.js";
import { openEvents } from "./openEvents.js";
import { sealEvents } from "./sealEvents.js";
import { createSubjectHasher } from "./subjectHash.js";

/** The key table's port over a map: what sealing and opening do with keys, without a database. */
function keysInMemory(): DataKeys & { shred(id: string): void } {
  const stored = new Map<string, Buffer>();
  const bySubject = new Map<string, DataKey>();
  const periods = new Map<string, DataKey>();
  const make = (): DataKey => {
    const key = { id: randomUUID(), key: randomBytes(32) };
    stored.set(key.id, key.key);
    return key;
  };
  return {
    subjects: async (requests) => {
      const found = new Map<string, DataKey>();
      for (const { teamId, subjectHash } of requests) {
        const name = `${teamId}/${subjectHash}`;
        if (!bySubject.has(name)) bySubject.set(name, make());
        found.set(name, bySubject.get(name)!);
      }
      return found;
    },
    period: async (kind) => {
      if (!periods.has(kind)) periods.set(kind, make());
      return periods.get(kind)!;
    },
    open: async (ids) => new Map(ids.filter((id) => stored.has(id)).map((id) => [id, stored.get(id)!])),
    eraseSubject: async () => ({ subjectKeys: 0, keyIds: [] }),
    expire: async () => 0,
    shred: (id) => void stored.delete(id),
  };
}

const teamId = randomUUID();
const queued = (emailId: string) =>
  personalEvents.emailQueued(teamId, emailId, {
    to: ["Annabel <annabel.canary@example.com>"],
    subject: "Hello Annabel",
    html: "<p>Hello Annabel</p>",
  });

describe("opening sealed events", () => {
  const keys = keysInMemory();
  const keyring = createKeyring(keys);
  const deps = { keyring, hashSubject: createSubjectHasher("a-unit-test-secret-0123456789abcdef"), streamSubjects: async () => [] };

  it("given a sealed email, when opened, then it reads as written and the stored event is left sealed", async () => {
    const emailId = randomUUID();
    const written = queued(emailId);
    const [sealed] = await sealEvents(deps, `email-${emailId}`, [written]);
    const stored = JSON.stringify(sealed!.data);
    expect(stored).not.toMatch(/annabel/i);

    const [opened] = await openEvents(keyring, [{ type: "EmailQueued", data: sealed!.data }]);
    expect(opened!.data).toEqual({ ...written.data });
    expect(JSON.stringify(sealed!.data)).toBe(stored);
    expect(opened!.data).not.toHaveProperty(groupsField);
  });

  it("given the content's period key shredded, when opened, then the content reads as placeholders of its shape and the address stays", async () => {
    const emailId = randomUUID();
    const [sealed] = await sealEvents(deps, `email-${emailId}`, [queued(emailId)]);
    const groups = (sealed!.data as Record<string, { k: string }[]>)[groupsField]!;
    keys.shred(groups.find((g) => g.k.startsWith("c:"))!.k.split(":")[2]!);

    const [opened] = await openEvents(keyring, [{ type: "EmailQueued", data: sealed!.data }]);
    const data = opened!.data as { to: string[]; subject: string; headers: object; text: string; tags: unknown };
    expect(data.to).toEqual(["Annabel <annabel.canary@example.com>"]);
    expect(isErasedText(data.subject)).toBe(true);
    expect(data.headers).toEqual({});
    expect(isErasedText(data.text)).toBe(true);
    expect(data.tags).toEqual([{ name: "kind", value: "order" }]);
  });

  it("given a reader that reads EmailQueued only, when a page also holding a delivery is opened, then only the queued email's keys are looked up and the delivery's data refuses to be read", async () => {
    const emailId = randomUUID();
    const sealed = await sealEvents(deps, `email-${emailId}`, [
      queued(emailId),
      ...personalEvents.emailDelivered(teamId, emailId, ["annabel.canary@example.com"]),
    ]);
    const looked: string[][] = [];
    const counting = createKeyring({ ...keys, open: (ids) => (looked.push(ids), keys.open(ids)) });

    const [email, sent, delivery] = await openEvents(counting, sealed, new Set(["EmailQueued"]));
    expect(sent).toBe(sealed[1]);
    expect((email!.data as { to: string[] }).to).toEqual(["Annabel <annabel.canary@example.com>"]);
    expect(() => delivery!.data).toThrow(/the data of a EmailDelivered was read by a reader that did not name the type/);
    expect(delivery!.id).toBe(sealed[2]!.id);
    const queuedKeys = (sealed[0]!.data as Record<string, { k: string }[]>)[groupsField]!.flatMap((g) => g.k.split(/[:,]/));
    expect(looked.flat().every((id) => queuedKeys.includes(id))).toBe(true);

    looked.length = 0;
    const none = await openEvents(counting, sealed, new Set());
    expect(looked).toEqual([]);
    expect(none.map((event) => event.type)).toEqual(["EmailQueued", "EmailSent", "EmailDelivered"]);
  });

  it("given a type left unopened, when a page holding it is opened, then its values in clear read as stored, none of its keys is looked up and a sealed value refuses to be read", async () => {
    const recipients = [{ contactId: randomUUID(), email: "annabel.canary@example.com" }];
    const [, planned] = await sealEvents(deps, `broadcast-${randomUUID()}`, personalEvents.broadcastSent(teamId, randomUUID(), recipients));
    const looked: string[][] = [];
    const counting = createKeyring({ ...keys, open: (ids) => (looked.push(ids), keys.open(ids)) });

    const [read] = await openEvents(counting, [planned!], undefined, new Set(["BroadcastBatchPlanned"]));
    const data = read!.data as { batch: number; recipients: unknown[] };
    expect(data.batch).toBe(0);
    expect(() => data.recipients).toThrow(/a sealed value of a BroadcastBatchPlanned was read by a reader that left the type unopened/);
    expect(looked).toEqual([]);
  });

  it("given an opened email forwarded to a saga, when the saga's copy is read, then it is the same view, opened once for the copy and the original alike", async () => {
    const emailId = randomUUID();
    const [sealed] = await sealEvents(deps, `email-${emailId}`, [queued(emailId)]);
    const recorded: RecordedEvent = {
      ...sealed!,
      metadata: { teamId },
      streamId: `email-${emailId}`,
      revision: 0n,
      position: START,
      createdAt: new Date(),
    };
    const [opened] = await openEvents(keyring, [toForwardedEvent(recorded)]);

    const copy = fromForwardedEvent(opened!);
    expect(copy.data).toBe(opened!.data);
    const data = copy.data as { emailId: string; to: string[] };
    expect(data.emailId).toBe(emailId);
    expect(data.to).toEqual(["Annabel <annabel.canary@example.com>"]);
    expect((opened!.data as { to: string[] }).to).toBe(data.to);
  });

  it("given an event type that holds no personal data, when opened, then it is passed through as it is", async () => {
    const event = { type: "DomainCreated", data: { [groupsField]: "not ours", name: "example.com" } };
    expect((await openEvents(keyring, [event]))[0]).toBe(event);
  });
});
