import { describe, expect, it } from "vitest";
import { domainDecider, type DomainCommand } from "../../domain/decider.js";
import type { DomainEvent } from "../../domain/events.js";
import { aDomainSettings, testRecordTargets } from "../../testing/domainBuilders.js";
import { payloadBuilderFor } from "./index.js";

const teamId = "5c1f3c4e-6a0b-4d2c-9e8f-1a2b3c4d5e6f";
const domainId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const targets = testRecordTargets;
const settings = aDomainSettings({ region: "eu-west-1" });
const at = (hour: number) => `2026-11-23 ${String(hour).padStart(2, "0")}:00:00.000000+00`;
const context = { messageIdOf: (id: string) => id };

/** The domain's stream after these commands, each decided on the state the ones before left. */
function streamAfter(commands: DomainCommand[]): DomainEvent[] {
  const events: DomainEvent[] = [];
  let state = domainDecider.initialState;
  for (const command of commands) {
    const decided = domainDecider.decide(command, state);
    if (!Array.isArray(decided)) throw new Error(`${command.type} was refused: ${decided.message}`);
    for (const event of decided) state = domainDecider.evolve(state, event);
    events.push(...decided);
  }
  return events;
}

/** The payload of each event of the stream, built from the stream up to it; null where none is sent. */
const payloads = (events: DomainEvent[]) =>
  events.map((event, i) => payloadBuilderFor("domain", event.type)?.(event, events.slice(0, i + 1), context) ?? null);

const create: DomainCommand = {
  type: "CreateDomain",
  domainId,
  teamId,
  name: "example.com",
  settings,
  targets,
  dkim: { selector: "tidings", publicKey: "PUBKEY", sealedPrivateKey: "v1.x" },
  now: at(10),
};
const verify: DomainCommand = {
  type: "StartDomainVerification",
  teamId,
  verificationId: "11111111-1111-4111-8111-111111111111",
  now: at(11),
  deadline: at(23),
};
const check = (checkId: string, status: "verified" | "failed", hour: number): DomainCommand => {
  const keyed = streamAfter([create]).find((e) => e.type === "DomainDkimKeyGenerated");
  if (!keyed) throw new Error("the create generated no DKIM key");
  return {
    type: "RecordDomainCheck",
    checkId,
    results: keyed.data.records.map((r) => ({ key: r.key, name: r.name, value: r.value, status })),
    now: at(hour),
  };
};

describe("domain webhook payloads", () => {
  it("builds domain.created with the reference's fields and the records as GET shows them, once per create", () => {
    const [created, key] = payloads(streamAfter([create]));
    expect(created).toMatchObject({
      type: "domain.created",
      created_at: "2026-11-23T10:00:00.000Z",
      data: { id: domainId, name: "example.com", status: "not_started", created_at: "2026-11-23T10:00:00.000Z", region: "eu-west-1" },
    });
    const records = (created!.data as { records: Record<string, unknown>[] }).records;
    expect(records.find((r) => r.record === "DKIM")).toEqual({
      record: "DKIM",
      name: "tidings._domainkey.example.com",
      type: "TXT",
      ttl: "Auto",
      status: "not_started",
      value: "v=DKIM1; k=rsa; p=PUBKEY",
    });
    expect(records.find((r) => r.type === "MX")).toMatchObject({ record: "SPF", priority: 10 });
    expect(key).toBeNull();
  });

  it("holds only the record kinds of Resend's webhook schema: no DMARC, and the receiving MX spelled `Receiving MX`", () => {
    const receiving: DomainCommand = {
      ...create,
      settings: aDomainSettings({ capabilities: { sending: "enabled", receiving: "enabled" } }),
    } as DomainCommand;
    const [created] = payloads(streamAfter([receiving]));
    const kinds = (created!.data as { records: { record: string }[] }).records.map((r) => r.record);
    expect(kinds).toEqual(["DKIM", "SPF", "SPF", "Receiving MX"]);
  });

  it("builds domain.updated for a PATCH, a verification started and a check that changed a status, never for a check that changed nothing", () => {
    const events = streamAfter([
      create,
      { type: "UpdateDomain", teamId, changes: { tls: "enforced" }, now: at(10) },
      verify,
      check("22222222-2222-4222-8222-222222222222", "verified", 12),
      check("33333333-3333-4333-8333-333333333333", "verified", 13),
    ]);
    const sent = payloads(events).filter((p) => p !== null);
    expect(sent.map((p) => [p!.type, (p!.data as { status: string }).status, p!.created_at])).toEqual([
      ["domain.created", "not_started", "2026-11-23T10:00:00.000Z"],
      ["domain.updated", "not_started", "2026-11-23T10:00:00.000Z"],
      ["domain.updated", "pending", "2026-11-23T11:00:00.000Z"],
      ["domain.updated", "verified", "2026-11-23T12:00:00.000Z"],
    ]);
  });

  it("builds domain.deleted with the domain as it was before the deletion", () => {
    const events = streamAfter([
      create,
      verify,
      check("22222222-2222-4222-8222-222222222222", "verified", 12),
      { type: "DeleteDomain", teamId, now: at(14) },
    ]);
    expect(payloads(events).at(-1)).toMatchObject({
      type: "domain.deleted",
      created_at: "2026-11-23T14:00:00.000Z",
      data: { id: domainId, name: "example.com", status: "verified" },
    });
  });
});
