import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleCommand } from "@tidings/commands";
import { formatTimestamp, newId } from "@tidings/core";
import { reputationDecider, reputationStream, type PauseScope } from "@tidings/domain";
import type { ApiInstance } from "../app.js";
import { jsonCaller, type JsonMethod } from "../testing/jsonCalls.js";
import { createTestServices, type TestKey, type TestServices } from "../testing/testServices.js";
import { recordVerified } from "../testing/verifiedDomain.js";

let t: TestServices;
let app: ApiInstance;
let admin: TestKey;

beforeAll(async () => {
  t = await createTestServices();
  app = await t.app({ services: { ...t.services, config: { ...t.services.config, TIDINGS_ALLOW_UNVERIFIED_FROM: false } } });
  admin = await t.aKey("sending-pauses-team");
});
afterAll(() => t?.dispose());

const call = (method: JsonMethod, url: string, payload?: unknown) =>
  jsonCaller(
    () => app,
    () => admin,
  )(method, url, payload);
const anEmail = (domain: string) => ({ from: `Acme <hello@${domain}>`, to: "ann@example.test", subject: "Hi", html: "<p>Hi</p>" });

/** A verified domain of the team. */
async function aDomain() {
  const name = `p-${newId().slice(0, 8)}.example.test`;
  const { body } = await call("POST", "/domains", { name });
  await recordVerified(t.store, body.id, body.created_at);
  return { id: body.id as string, name };
}

/** Records a pause (as the reputation watcher does) or its lift (as the CLI does), and waits for the read models. */
async function decide(kind: "pause" | "lift", scope: PauseScope, scopeId: string, domainName: string | null) {
  const facts = { scope, scopeId, teamId: admin.teamId, domainName, now: formatTimestamp(new Date()) };
  const { position } = await handleCommand({
    store: t.store,
    streamId: reputationStream(scopeId),
    decider: reputationDecider,
    command:
      kind === "pause"
        ? { type: "PauseSending", ...facts, metric: "bounce", rate: 0.125, threshold: 0.1, sends: 400, windowHours: 24 }
        : { type: "LiftSendingPause", ...facts },
    metadata: { actor: kind === "pause" ? "saga:reputation" : "cli" },
  });
  expect(await t.projections.waitFor(position!, 60_000)).toBe(true);
}

/** Repeats `request` until it answers `status`: the api reads the pauses at most once a second. */
async function answered(status: number, request: () => Promise<{ status: number; body: { message?: string } }>) {
  const giveUpAt = Date.now() + 60_000;
  for (;;) {
    const res = await request();
    if (res.status === status || Date.now() > giveUpAt) return res;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("a paused team or domain", () => {
  it("refuses new emails, batches and broadcast sends from the paused domain, naming the rate, and takes them again once lifted", async () => {
    const paused = await aDomain();
    const other = await aDomain();
    await decide("pause", "domain", paused.id, paused.name);

    const refused = await answered(403, () => call("POST", "/emails", anEmail(paused.name)));
    expect(refused.body).toEqual({
      statusCode: 403,
      name: "validation_error",
      message:
        `Sending from domain ${paused.name} is paused: bounce rate 12.5% of 400 emails over the last 24 h reached the 10.0% limit. ` +
        `An operator lifts it with \`tidings reputation lift --team ${admin.teamId} --domain ${paused.name}\`.`,
    });
    expect((await call("POST", "/emails", anEmail(other.name))).status).toBe(200);
    const batch = await call("POST", "/emails/batch", [anEmail(other.name), anEmail(paused.name)]);
    expect(batch).toMatchObject({ status: 403, body: { name: "validation_error", message: /is paused: bounce rate 12\.5%/ } });

    const segmentId = (await call("POST", "/segments", { name: "Paused readers" })).body.id as string;
    const draft = { segment_id: segmentId, from: `Acme <news@${paused.name}>`, subject: "News", html: "<p>Hi</p>", name: "Paused" };
    const broadcastId = (await call("POST", "/broadcasts", draft)).body.id as string;
    expect(await call("POST", `/broadcasts/${broadcastId}/send`, {})).toMatchObject({ status: 403, body: { message: /is paused/ } });
    expect(await call("POST", "/broadcasts", { ...draft, send: true })).toMatchObject({ status: 403 });

    await decide("lift", "domain", paused.id, paused.name);
    expect((await answered(200, () => call("POST", "/emails", anEmail(paused.name)))).status).toBe(200);
    expect((await call("POST", `/broadcasts/${broadcastId}/send`, {})).status).toBe(200);
  });

  it("refuses sends from every domain of a paused team", async () => {
    const domain = await aDomain();
    await decide("pause", "team", admin.teamId, null);
    const refused = await answered(403, () => call("POST", "/emails", anEmail(domain.name)));
    expect(refused.body.message).toMatch(new RegExp(`^Sending from team ${admin.teamId} is paused: bounce rate 12\\.5%`));
    await decide("lift", "team", admin.teamId, null);
    expect((await answered(200, () => call("POST", "/emails", anEmail(domain.name)))).status).toBe(200);
  });
});
