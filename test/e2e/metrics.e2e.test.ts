import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scrape, type Scrape } from "@tidings/metrics/testing";
import { startMailingServer, type MailingServer } from "../support/mailingServer.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhookReceiver.js";

/**
 * The metrics of a whole server (every role, one listener) while the resend SDK sends an email to a real
 * SMTP sink and its `email.delivered` webhook to a real receiver: the counters and histograms move, and no
 * label carries the email's id, its address or the webhook's URL (docs/operations.md, "Metrics").
 */
describe("metrics of a server sending an email and its webhook", () => {
  let mailing: MailingServer;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    mailing = await startMailingServer({ METRICS_PORT: "0", WEBHOOK_ALLOW_PRIVATE: "true" });
  });
  afterAll(async () => {
    await mailing?.stop();
    await receiver?.close();
  });

  /** Scrapes until `ready` holds, for the saga's counts that come a moment after the sink or receiver saw the effect. */
  const scrapeUntil = async (ready: (scraped: Scrape) => boolean, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const scraped = await scrape(mailing.server.serving.metricsUrl!);
      if (ready(scraped) || Date.now() > deadline) return scraped;
      await sleep(100);
    }
  };

  it("counts the delivery, the webhook attempt, the request and the appends, with kinds and templates as labels", async () => {
    const { resend, sink } = mailing;
    const webhook = await resend.webhooks.create({ endpoint: `${receiver.url}/hook`, events: ["email.delivered"] });
    expect(webhook.error).toBeNull();
    const sent = await resend.emails.send({ from: "Acme <hello@acme.test>", to: "ann@example.test", subject: "Hi", html: "<p>Hi</p>" });
    expect(sent.error).toBeNull();
    const emailId = sent.data!.id;
    await sink.waitForMessages(1, 30_000);
    await receiver.waitFor("/hook", 1, 30_000);
    await resend.emails.get(emailId);

    const scraped = await scrapeUntil(
      (s) =>
        s.total("tidings_webhook_attempts_total", { outcome: "succeeded" }) >= 1 &&
        s.total("tidings_emails_last_hour", { outcome: "delivered" }) >= 1,
    );
    // What the bounce- and complaint-rate alerts divide (deploy/prometheus/alerts.yml), from the email metrics read model.
    expect(scraped.total("tidings_emails_last_hour", { outcome: "sent" })).toBe(1);
    expect(scraped.total("tidings_emails_last_hour", { outcome: "delivered" })).toBe(1);
    expect(scraped.total("tidings_emails_last_hour", { outcome: "bounced" })).toBe(0);
    expect(scraped.total("tidings_deliveries_total", { outcome: "delivered", transport: "smtp" })).toBe(1);
    expect(scraped.total("tidings_delivery_send_seconds_count", { transport: "smtp" })).toBe(1);
    expect(scraped.total("tidings_smtp_connections_in_use", { transport: "smtp" })).toBe(0);
    expect(scraped.total("tidings_webhook_attempts_total", { outcome: "succeeded" })).toBe(1);
    expect(scraped.total("tidings_webhook_attempt_seconds_count", { outcome: "succeeded" })).toBe(1);
    expect(scraped.total("tidings_eventstore_append_seconds_count", { outcome: "ok" })).toBeGreaterThan(0);
    expect(scraped.total("tidings_eventstore_append_events_count")).toBeGreaterThan(0);
    expect(scraped.total("tidings_http_requests_total", { route: "/emails", method: "POST", status: "200" })).toBe(1);
    expect(scraped.total("tidings_http_requests_total", { route: "/emails/:id", method: "GET", status: "200" })).toBe(1);
    expect(scraped.total("tidings_saga_messages_total", { consumer: "delivery", outcome: "ok" })).toBeGreaterThanOrEqual(1);
    expect(scraped.find("tidings_projection_lag_seconds")).not.toHaveLength(0);

    const labels = scraped.tidingsLabelValues().join("\n");
    for (const identifying of [emailId, webhook.data!.id, "ann@example.test", receiver.url, "/hook"]) {
      expect(labels).not.toContain(identifying);
    }
  });
});
