import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import { simpleParser } from "mailparser";
import type { Resend } from "resend";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settledWrites } from "@tidings/postgres";
import type { SmtpSink } from "@tidings/testkit";
import { startMailingServer, type MailingServer } from "../support/mailingServer.js";
import type { TestServer } from "../support/testServer.js";
import { verifiedPayload } from "../support/signedWebhooks.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhookReceiver.js";

const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0";
const loopback = /^(::ffff:)?127\.0\.0\.1$/;

describe("open and click tracking, through real HTTP, into webhooks on a loopback receiver", () => {
  let mailing: MailingServer;
  let sink: SmtpSink;
  let receiver: WebhookReceiver;
  let server: TestServer;
  let resend: Resend;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    // Links under PUBLIC_URL (this server) instead of https://<tracking_subdomain>.<domain>.
    mailing = await startMailingServer({ WEBHOOK_ALLOW_PRIVATE: "true", TRACKING_BASE_URL: "public" });
    ({ sink, server, resend } = mailing);
  });
  afterAll(async () => {
    await mailing?.stop();
    await receiver?.close();
  });

  it("rewrites links and adds a pixel; opens and clicks arrive as signed webhooks, a scanner's fast click flagged machine", async () => {
    const name = `track-${randomBytes(4).toString("hex")}.test`;
    const domain = await resend.domains.create({ name, openTracking: true, clickTracking: true });
    expect(domain.error).toBeNull();
    const { data: webhook } = await resend.webhooks.create({
      endpoint: `${receiver.url}/engagement`,
      events: ["email.opened", "email.clicked"],
    });
    const target = "https://shop.example.test/offer?item=7&ref=mail";
    const sent = await resend.emails.send({
      from: `Acme <hello@${name}>`,
      to: "ann@example.test",
      subject: "Our offer",
      html: `<html><body><p><a href="https://shop.example.test/offer?item=7&amp;ref=mail">See the offer</a></p><p><a href="mailto:help@${name}">Help</a></p></body></html>`,
      tags: [{ name: "campaign", value: "autumn" }],
    });
    const emailId = sent.data!.id;

    const [message] = await sink.waitForMessages(1);
    const parsed = await simpleParser(message!.raw);
    const html = String(parsed.html);
    const links = [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!);
    expect(links).toEqual([
      expect.stringMatching(new RegExp(`^${server.url.replace("127.0.0.1", "localhost")}/c/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`)),
      `mailto:help@${name}`,
    ]);
    const pixel = /<img src="([^"]+\/o\/[^"]+)" width="1" height="1"/.exec(html)?.[1];
    expect(pixel).toBeDefined();
    expect(parsed.text).toContain("https://shop.example.test/offer?item=7&ref=mail");
    const clickUrl = links[0]!.replace("localhost", "127.0.0.1");

    // A link scanner follows every link the moment the message lands, before any person could read it.
    const scanner = await fetch(clickUrl, { redirect: "manual", headers: { "user-agent": firefox } });
    expect(scanner.status).toBe(302);
    expect(scanner.headers.get("location")).toBe(target);
    await sleep(2_100);
    const person = await fetch(clickUrl, { redirect: "manual", headers: { "user-agent": firefox } });
    expect(person.status).toBe(302);
    expect(person.headers.get("location")).toBe(target);
    // A link checker's HEAD is answered and recorded nowhere.
    expect((await fetch(clickUrl, { method: "HEAD", redirect: "manual", headers: { "user-agent": firefox } })).status).toBe(302);
    const opened = await fetch(pixel!.replace("localhost", "127.0.0.1"), { headers: { "user-agent": firefox } });
    expect(opened.status).toBe(200);
    expect(opened.headers.get("content-type")).toBe("image/gif");
    expect((await opened.arrayBuffer()).byteLength).toBe(43);

    const received = (await receiver.waitFor("/engagement", 3)).map((r) => verifiedPayload(resend, r, webhook!.signing_secret));
    const clicks = received.filter((p) => p.type === "email.clicked");
    const base = {
      email_id: emailId,
      from: `Acme <hello@${name}>`,
      to: ["ann@example.test"],
      subject: "Our offer",
      tags: { campaign: "autumn" },
    };
    expect(clicks.map((c) => c.data.machine).sort()).toEqual([false, true]);
    for (const click of clicks)
      expect(click.data).toMatchObject({
        ...base,
        click: { link: target, userAgent: firefox, ipAddress: expect.stringMatching(loopback), timestamp: expect.stringMatching(/Z$/) },
      });
    expect(received.find((p) => p.type === "email.opened")?.data).toMatchObject({ ...base, machine: false });

    // The webhooks and the read model follow the events each at its own pace: the open can arrive first.
    const lastEvent = async () => (await resend.emails.get(emailId)).data?.last_event;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline && (await lastEvent()) !== "opened";) await sleep(50);
    expect(await lastEvent()).toBe("opened");
    const clickedLinks = async () => {
      const { rows } = await sql<{ link: string; clicks: string; machine_clicks: string }>`
        SELECT link, clicks, machine_clicks FROM email_link_clicks WHERE email_id = ${emailId}`.execute(server.serving.runtime.database.db);
      return rows.map((r) => ({ link: r.link, clicks: Number(r.clicks), machine_clicks: Number(r.machine_clicks) }));
    };
    for (const deadline = Date.now() + 60_000; Date.now() < deadline && (await clickedLinks())[0]?.clicks !== 2;) await sleep(50);
    expect(await clickedLinks()).toEqual([{ link: target, clicks: 2, machine_clicks: 1 }]);

    // The open is a request of the recipient's: its id starts the chain of the EmailOpened and of its webhook delivery.
    const openRequest = opened.headers.get("x-request-id")!;
    // $all shows an event once every transaction begun before it has ended (a shared PostgreSQL has others).
    await settledWrites(server.serving.runtime.database, 60_000);
    const events = await server.serving.runtime.store.readAll({ maxCount: 100_000 });
    const openEvent = events.find((e) => e.type === "EmailOpened" && (e.data as { emailId: string }).emailId === emailId)!;
    expect(openEvent.metadata).toMatchObject({ actor: "recipient", correlationId: openRequest, causationId: openRequest });
    expect(openEvent.metadata.teamId).toEqual(expect.any(String));
    const forOpen = events.find((e) => e.type === "WebhookDeliveryCreated" && (e.data as { eventId: string }).eventId === openEvent.id)!;
    expect(forOpen.metadata).toMatchObject({ actor: "saga:webhooks", correlationId: openRequest, causationId: openEvent.id });
  });

  it("refuses a forged link with a 404 page and no redirect, and still serves the pixel for a forged one", async () => {
    const forged = await fetch(`${server.url}/c/AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA`, { redirect: "manual" });
    expect(forged.status).toBe(404);
    expect(forged.headers.get("location")).toBeNull();
    const pixel = await fetch(`${server.url}/o/nonsense`);
    expect(pixel.status).toBe(200);
    expect(pixel.headers.get("content-type")).toBe("image/gif");
  });
});
