import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, loadConfig, randomBase62 } from "@tidings/core";
import { scrape } from "@tidings/metrics/testing";
import { serve, type Role, type Serving } from "./serve.js";
import { freshSettings } from "../testing/freshSettings.js";

const logger = createLogger("silent");
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function started(settings: Record<string, string>, role: Role): Promise<Serving> {
  const serving = await serve(loadConfig(settings), logger, role);
  cleanups.push(() => serving.stop());
  return serving;
}

describe("a process's metrics", () => {
  const token = randomBase62(32);
  let settings: Record<string, string>;
  let serving: Serving;
  beforeAll(async () => {
    settings = await freshSettings({ METRICS_PORT: "0", METRICS_TOKEN: token }, (undo) => cleanups.push(undo));
    // Every role in one process, one listener: the api answers keyed requests once its projections run.
    serving = await started(settings, "all");
  });

  it("count requests by route template, bind 127.0.0.1 by default, and ask for METRICS_TOKEN", async () => {
    expect(serving.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const url = serving.metricsUrl!;

    const key = { authorization: `Bearer ${settings.TIDINGS_BOOTSTRAP_TOKEN}` };
    const emailId = randomUUID();
    expect((await fetch(`${serving.url}/emails/${emailId}`, { headers: key })).status).toBe(404);
    expect((await fetch(`${serving.url}/emails/${randomUUID()}`, { headers: key })).status).toBe(404);
    expect((await fetch(`${serving.url}/nothing/here/${emailId}`)).status).toBe(404);
    expect((await fetch(`${serving.url}/health`)).status).toBe(200);

    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Bearer ${token}x` } })).status).toBe(401);
    expect((await fetch(url.replace("/metrics", "/other"), { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
    const scraped = await scrape(url, token);

    expect(scraped.total("tidings_http_requests_total", { route: "/emails/:id", method: "GET", status: "404" })).toBe(2);
    expect(scraped.total("tidings_http_request_duration_seconds_count", { route: "/emails/:id", method: "GET", status: "404" })).toBe(2);
    expect(scraped.total("tidings_http_requests_total", { route: "unmatched", status: "404" })).toBe(1);
    expect(scraped.total("tidings_http_requests_total", { route: "/health", status: "200" })).toBe(1);
    // The bootstrap key's team and key were appended at start.
    expect(scraped.total("tidings_eventstore_append_seconds_count", { outcome: "ok" })).toBeGreaterThan(0);
    expect(scraped.total("process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(scraped.find("tidings_projection_lag_seconds", { projection: "emails" })).toHaveLength(1);
    expect(scraped.find("tidings_forwarder_lag_events")).toHaveLength(1);
    expect(scraped.find("tidings_saga_pending_messages", { consumer: "delivery" })).toHaveLength(1);
    expect(scraped.find("tidings_saga_dead_letters", { consumer: "delivery" })).toEqual([expect.objectContaining({ value: 0 })]);
    expect(scraped.find("tidings_smtp_connections_max", { transport: "outbox" })).toEqual([
      expect.objectContaining({ value: loadConfig({}).MAIL_CONCURRENCY }),
    ]);
    const labelValues = scraped.tidingsLabelValues().join(" ");
    expect(labelValues).not.toContain(emailId);
    expect(labelValues).not.toContain("/nothing");
  });
});

describe("/ready and projection lag", () => {
  // Two starts, which in embedded mode on a loaded machine take most of a minute.
  const timeout = 180_000;
  it(
    "answers 503 naming the projections while none runs past READY_MAX_PROJECTION_LAG_SECONDS, and 200 once they catch up",
    { timeout },
    async () => {
      const settings = await freshSettings({ READY_MAX_PROJECTION_LAG_SECONDS: "1", READ_YOUR_WRITES_TIMEOUT_MS: "0" }, (undo) =>
        cleanups.push(undo),
      );
      // The api alone: the bootstrap key's events wait for a projector that is not there.
      const api = await started(settings, "api");
      // The bootstrap events are more than a second old once the check reads them; on a loaded machine the
      // first reads after the start may still see them younger, so the check is asked until it says 503.
      const behindBy = Date.now() + 30_000;
      let behind = await fetch(`${api.url}/ready`);
      while (behind.status !== 503 && Date.now() < behindBy) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        behind = await fetch(`${api.url}/ready`);
      }
      expect(behind.status).toBe(503);
      expect(((await behind.json()) as { message: string }).message).toBe("Not ready: `projections` failed.");
      await api.stop();

      const all = await started(settings, "all");
      const deadline = Date.now() + 30_000;
      let status = 0;
      while (status !== 200 && Date.now() < deadline) {
        status = (await fetch(`${all.url}/ready`)).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe(200);
    },
  );
});
