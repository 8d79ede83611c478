import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, loadConfig } from "@tidings/core";
import { testMode } from "@tidings/postgres";
import { startDnsResponder, startSmtpSink, type SmtpSink } from "@tidings/testkit";
import type { CheckResult } from "../doctor/installationChecks.js";
import { freshSettings } from "../testing/freshSettings.js";
import { doctor } from "./doctor.js";
import { serve, type Serving } from "./serve.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** `tidings doctor --json` on `settings`, with the serving process's stores when given. */
async function diagnose(settings: Record<string, string>, serving?: Serving) {
  const printed: string[] = [];
  const out = { out: (line: string) => void printed.push(line), err: () => {} };
  const code = await doctor(loadConfig(settings), serving?.runtime, true, out);
  return { code, checks: (JSON.parse(printed.join("")) as { checks: CheckResult[] }).checks };
}

describe("tidings doctor", () => {
  let sink: SmtpSink;
  let settings: Record<string, string>;
  let serving: Serving;
  beforeAll(async () => {
    sink = await startSmtpSink();
    cleanups.push(() => sink.close());
    settings = await freshSettings({ MAIL_TRANSPORT: "smtp", SMTP_URL: sink.url }, (undo) => cleanups.push(undo));
    serving = await serve(loadConfig(settings), createLogger("silent"), "all");
    cleanups.push(() => serving.stop());
  });

  it("passes every check of a running installation, and exits 0", async () => {
    const { code, checks } = await diagnose(settings, serving);
    expect(checks.filter((c) => !c.ok)).toEqual([]);
    expect(checks.map((c) => c.check)).toEqual([
      "settings",
      "secret",
      "PostgreSQL",
      "NATS",
      "SMTP relay",
      "clock",
      "projection lag",
      "dead letters",
      "domain DNS",
      "audit",
      "sending pauses",
      "disk",
    ]);
    expect(checks.find((c) => c.check === "domain DNS")!.detail).toBe("no domains");
    expect(checks.find((c) => c.check === "audit")!.detail).toMatch(
      /^(seal #\d+ and the \d+ events from the seal before it|\d+ events \(no seal yet\)): intact$/,
    );
    expect(checks.find((c) => c.check === "SMTP relay")!.detail).toMatch(/^EHLO answered 250/);
    expect(code).toBe(0);
  });

  it("exits 1 naming the relay that does not answer, and NATS when it is unreachable, with what to do", async () => {
    const server = testMode() === "server";
    const broken = { ...settings, SMTP_URL: "smtp://127.0.0.1:1", ...(server ? { NATS_URL: "nats://127.0.0.1:1" } : {}) };
    // Server mode: as the CLI runs it when the stores do not open (NATS down). Embedded has no NATS, and keeps its stores.
    const { code, checks } = await diagnose(broken, server ? undefined : serving);
    expect(code).toBe(1);
    const failedChecks = checks.filter((c) => !c.ok);
    expect(failedChecks.map((c) => c.check)).toEqual(
      server ? ["NATS", "SMTP relay", "projection lag", "dead letters", "domain DNS", "audit", "sending pauses"] : ["SMTP relay"],
    );
    for (const c of failedChecks) expect(c.fix).toBeTruthy();
  });

  it("names each domain record that DNS does not answer as expected, and passes once they are published", async () => {
    const dns = await startDnsResponder({});
    cleanups.push(() => dns.close());
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${serving.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${settings.TIDINGS_BOOTSTRAP_TOKEN}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(res.status).toBeLessThan(300);
      return (await res.json()) as {
        id: string;
        records: { record: string; name: string; type: string; value: string; priority?: number }[];
      };
    };
    const { id } = await api("POST", "/domains", { name: "doctor-checks.example" });
    const { records } = await api("GET", `/domains/${id}`);
    const withDns = { ...settings, DNS_SERVERS: dns.address };

    const missing = (await diagnose(withDns, serving)).checks.find((c) => c.check === "domain DNS")!;
    expect(missing).toMatchObject({ ok: false, fix: expect.stringMatching(/verify/) });
    for (const r of records) expect(missing.detail).toContain(`doctor-checks.example ${r.record} ${r.type} ${r.name} failed`);

    for (const r of records) {
      const name = (dns.zone[r.name] ??= {});
      if (r.type === "TXT") (name.TXT ??= []).push(r.value);
      if (r.type === "MX") (name.MX ??= []).push({ priority: r.priority ?? 10, exchange: r.value });
      if (r.type === "CNAME") (name.CNAME ??= []).push(r.value);
    }
    const published = (await diagnose(withDns, serving)).checks.find((c) => c.check === "domain DNS")!;
    expect(published).toEqual({ check: "domain DNS", ok: true, detail: `1 domain: ${records.length} records as expected` });
  });
});
