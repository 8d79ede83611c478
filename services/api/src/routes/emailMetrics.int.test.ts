import { describe, expect, it } from "vitest";
import { newId } from "@tidings/core";
import { emailStream } from "@tidings/domain";
import { anEmailContent } from "@tidings/domain/testing";
import { emailMetricsProjection, verifyProjection } from "@tidings/projections";
import { apiTestFile } from "../testing/apiTestFile.js";
import { wireError } from "../testing/jsonCalls.js";

const file = apiTestFile("metrics");
const { call } = file;

type Outcome = [type: string, data: Record<string, unknown>];
const engagement = { ipAddress: null, userAgent: null, machine: false, machineReason: null };
const sent = (at: string): Outcome => ["EmailSent", { sentAt: at }];
const delivered = (at: string): Outcome => ["EmailDelivered", { deliveredAt: at, response: "250 ok", code: 250 }];
const opened = (at: string): Outcome => ["EmailOpened", { openedAt: at, ...engagement }];
const clicked = (at: string): Outcome => ["EmailClicked", { clickedAt: at, link: "https://acme.test", linkIndex: 0, ...engagement }];

/** Given an email of the file's team and what happened to it, as the delivery saga and the tracking routes record it. */
async function anEmail(content: { domainId?: string; broadcastId?: string; teamId?: string }, ...outcomes: Outcome[]): Promise<string> {
  const emailId = newId();
  const teamId = content.teamId ?? file.admin.teamId;
  const events = [
    {
      type: "EmailQueued",
      data: anEmailContent({ emailId, teamId, domainId: content.domainId ?? null, broadcastId: content.broadcastId }),
    },
    ...outcomes.map(([type, data]) => ({ type, data: { emailId, teamId, ...data } })),
  ].map((event) => ({ id: newId(), ...event, metadata: { teamId } }));
  const { position } = await file.testServices.store.append(emailStream(emailId), events, "no_stream");
  await file.testServices.services.waitFor(position!);
  return emailId;
}

const bounced = (at: string): Outcome => [
  "EmailBounced",
  { recipients: ["ann@example.test"], bounce: { type: "permanent", message: "no such user" }, bouncedAt: at, response: "550", code: 550 },
];

const metrics = (query: string) => call("GET", `/emails/metrics?${query}`);
const january = "start_date=2026-01-01&end_date=2026-01-31";

describe("GET /emails/metrics", () => {
  let domainA = "";
  let domainB = "";
  let broadcast = "";
  let first = "";

  it("given emails sent, delivered, bounced, opened and clicked, totals them once per email where unique, with rates", async () => {
    domainA = (await call("POST", "/domains", { name: "a-metrics.test" })).body.id;
    domainB = (await call("POST", "/domains", { name: "b-metrics.test" })).body.id;
    const segment = (await call("POST", "/segments", { name: "Readers" })).body.id;
    const news = { name: "January news", segment_id: segment, from: "hi@b-metrics.test", subject: "News", html: "<p>x</p>" };
    broadcast = (await call("POST", "/broadcasts", news)).body.id;
    const at = "2026-01-10T09:00:00.000Z";
    first = await anEmail({ domainId: domainA }, sent(at), delivered(at), opened(at), opened("2026-01-12T09:00:00Z"), clicked(at));
    await anEmail({ domainId: domainA }, sent(at), bounced(at));
    // Recipients settling over two attempts record two deliveries: the email counts as delivered once.
    await anEmail({ domainId: domainB, broadcastId: broadcast }, sent(at), delivered(at), delivered(at), opened(at));
    await anEmail({ domainId: domainB, teamId: file.other.teamId }, sent(at), delivered(at));

    const answer = await metrics(`${january}&metrics=sent,delivered,bounced,opened,unique_opened&metrics=clicked,unique_clicked`);
    expect(answer).toEqual({
      status: 200,
      body: {
        object: "metrics",
        start_date: "2026-01-01T00:00:00.000Z",
        end_date: "2026-02-01T00:00:00.000Z",
        metrics: ["sent", "delivered", "bounced", "opened", "unique_opened", "clicked", "unique_clicked"],
        dimensions: [],
        granularity: "daily",
        totals: { sent: 3, delivered: 2, bounced: 1, opened: 3, unique_opened: 2, clicked: 1, unique_clicked: 1 },
      },
    });
    const rates = await metrics(`${january}&metrics=delivery_rate,bounce_rate,open_rate,click_rate,unsubscribe_rate`);
    expect(rates.body.totals).toEqual({ delivery_rate: 0.6667, bounce_rate: 0.3333, open_rate: 1, click_rate: 0.5, unsubscribe_rate: 0 });
  });

  it("breaks the totals down by domain and by broadcast, with their names", async () => {
    const byDomain = await metrics(`${january}&dimensions=domain&metrics=sent,delivered`);
    expect(byDomain.body.data).toEqual([
      { domain_id: domainA, domain_name: "a-metrics.test", sent: 2, delivered: 1 },
      { domain_id: domainB, domain_name: "b-metrics.test", sent: 1, delivered: 1 },
    ]);
    const byBroadcast = await metrics(`${january}&dimensions=broadcast&metrics=sent`);
    expect(byBroadcast.body).toMatchObject({
      totals: { sent: 3 },
      data: [{ broadcast_id: broadcast, broadcast_name: "January news", sent: 1 }],
    });
    const filtered = await metrics(`${january}&domain_id=${domainB}&metrics=sent`);
    expect(filtered.body.totals).toEqual({ sent: 1 });
  });

  it("counts each email alone with the email dimension or filter", async () => {
    const answer = await metrics(`${january}&dimensions=email&email_id=${first}&metrics=opened,unique_opened`);
    expect(answer.body.data).toEqual([{ email_id: first, opened: 2, unique_opened: 1 }]);
  });

  it("given an open at 23:55 and one at 00:05 in Kathmandu (+05:45), counts them on two local days", async () => {
    await anEmail({ domainId: domainA }, opened("2026-01-20T18:10:00Z"), opened("2026-01-20T18:20:00Z"));
    const answer = await metrics("start_date=2026-01-20&end_date=2026-01-21&timezone=Asia/Kathmandu&dimensions=period&metrics=opened");
    expect(answer.body).toMatchObject({
      start_date: "2026-01-19T18:15:00.000Z",
      end_date: "2026-01-21T18:15:00.000Z",
      data: [
        { period: "2026-01-20T00:00:00+05:45", opened: 1 },
        { period: "2026-01-21T00:00:00+05:45", opened: 1 },
      ],
    });
  });

  it("refuses what the contract refuses, naming the field, and a sending-access key", async () => {
    expect(await metrics("metrics=sent,sends")).toEqual(wireError(422, "validation_error", /^`metrics` must be among .*; got `sends`\.$/));
    expect(await metrics("dimensions=email,broadcast")).toEqual(wireError(422, "validation_error", /`email` and `broadcast`/));
    expect(await metrics(`email_id=${first}&broadcast_id=${newId()}`)).toEqual(wireError(422, "validation_error", /^`email_id` cannot/));
    expect(await metrics("timezone=Mars/Olympus")).toEqual(wireError(422, "validation_error", /^Invalid `timezone`/));
    expect(await metrics("start_date=yesterday")).toEqual(wireError(422, "validation_error", /^Invalid `start_date`/));
    expect(await metrics("start_date=2020-01-01&end_date=2026-01-01&dimensions=period&granularity=hourly")).toEqual(
      wireError(422, "validation_error", /more than 10000 `hourly` periods/),
    );
    const sending = await file.testServices.aKey("metrics-team", { permission: "sending_access" });
    expect(await call("GET", "/emails/metrics", undefined, sending)).toEqual(wireError(401, "restricted_api_key", /restricted/));
  });

  it("is rebuilt from the events to the same rows", async () => {
    const { services } = file.testServices;
    const result = await verifyProjection({
      store: file.testServices.store,
      database: services.database,
      projection: emailMetricsProjection,
    });
    expect(result).toMatchObject({ differences: 0 });
    expect(result.events).toBeGreaterThan(0);
  });
});
