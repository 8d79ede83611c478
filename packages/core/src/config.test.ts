import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

const secret = "x".repeat(32);

describe("loadConfig", () => {
  it("defaults to embedded mode on port 3000", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ mode: "embedded", eventStoreKind: "pglite", PORT: 3000, HOST: "127.0.0.1", DATA_DIR: "./data" });
    expect(c.PUBLIC_URL).toBe("http://localhost:3000");
    expect(c.MAIL_TRANSPORT).toBe("outbox");
  });
  it("uses the event store's database for read models in the Postgres-only deployment", () => {
    const c = loadConfig({ EVENTSTORE_URL: "postgres://h/db", TIDINGS_SECRET: secret });
    expect(c).toMatchObject({
      mode: "server",
      eventStoreKind: "postgres",
      DATABASE_URL: "postgres://h/db",
      DATABASE_PREPARED_STATEMENTS: true,
    });
    expect(
      loadConfig({ EVENTSTORE_URL: "postgres://h/db", TIDINGS_SECRET: secret, DATABASE_PREPARED_STATEMENTS: "false" })
        .DATABASE_PREPARED_STATEMENTS,
    ).toBe(false);
  });
  it("reads whom to trust about the client's address: nobody by default, every hop, a number of hops, or named proxies", () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "true" }).TRUST_PROXY).toBe(true);
    expect(loadConfig({ TRUST_PROXY: "2" }).TRUST_PROXY).toBe(2);
    expect(loadConfig({ TRUST_PROXY: "10.0.0.0/8, 127.0.0.1,::1" }).TRUST_PROXY).toEqual(["10.0.0.0/8", "127.0.0.1", "::1"]);
  });
  it("reads how far the heap may grow past its live objects: 100% unless told, 0 for V8's own, at most 300%", () => {
    expect(loadConfig({}).HEAP_GROWTH_PERCENT).toBe(100);
    expect(loadConfig({ HEAP_GROWTH_PERCENT: "0" }).HEAP_GROWTH_PERCENT).toBe(0);
    expect(() => loadConfig({ HEAP_GROWTH_PERCENT: "301" })).toThrow(ConfigError);
    expect(() => loadConfig({ HEAP_GROWTH_PERCENT: "301" })).toThrow(/HEAP_GROWTH_PERCENT/);
  });

  it("reads the direct delivery settings: resolvers with their ports, the MX port, certificate checks", () => {
    expect(loadConfig({})).toMatchObject({ MAIL_CONCURRENCY: 32, DNS_SERVERS: [], MX_PORT: 25, MX_TLS_REJECT_UNAUTHORIZED: true });
    const c = loadConfig({ DNS_SERVERS: "127.0.0.1:5353,[::1]:53,9.9.9.9,::1", MX_PORT: "2525", MX_TLS_REJECT_UNAUTHORIZED: "false" });
    expect(c).toMatchObject({
      DNS_SERVERS: ["127.0.0.1:5353", "[::1]:53", "9.9.9.9", "::1"],
      MX_PORT: 2525,
      MX_TLS_REJECT_UNAUTHORIZED: false,
    });
  });
  it("reads the inbound SMTP listener's settings: off unless given a port, 40 MB messages, STARTTLS with a certificate", () => {
    expect(loadConfig({})).toMatchObject({ INBOUND_SMTP_PORT: undefined, INBOUND_MAX_MESSAGE_BYTES: 40 * 1024 * 1024 });
    expect(loadConfig({ INBOUND_SMTP_PORT: "0", INBOUND_TLS_CERT: "c.pem", INBOUND_TLS_KEY: "k.pem" })).toMatchObject({
      INBOUND_SMTP_PORT: 0,
      INBOUND_TLS_CERT: "c.pem",
    });
  });
  it("reads SMTP submission's settings: off unless given a port, 40 MB messages, TLS with a certificate and key", () => {
    expect(loadConfig({})).toMatchObject({ SUBMISSION_SMTP_PORT: undefined, SUBMISSION_MAX_MESSAGE_BYTES: 40 * 1024 * 1024 });
    const tls = { SUBMISSION_TLS_CERT: "c.pem", SUBMISSION_TLS_KEY: "k.pem" };
    expect(
      loadConfig({ SUBMISSION_SMTP_PORT: "587", SUBMISSION_SMTPS_PORT: "465", SUBMISSION_SMTP_HOST: "0.0.0.0", ...tls }),
    ).toMatchObject({
      SUBMISSION_SMTP_PORT: 587,
      SUBMISSION_SMTPS_PORT: 465,
      SUBMISSION_SMTP_HOST: "0.0.0.0",
      SUBMISSION_TLS_CERT: "c.pem",
    });
  });
  it("reads how long each kind of content is kept: durations in milliseconds, null for kept for ever", () => {
    expect(loadConfig({})).toMatchObject({
      RETENTION_EMAIL_CONTENT: 90 * 86_400_000,
      RETENTION_INBOUND_MESSAGES: 30 * 86_400_000,
      RETENTION_REQUEST_LOG_BODIES: 30 * 86_400_000,
      RETENTION_WEBHOOK_PAYLOADS: 30 * 86_400_000,
      RETENTION_EVENT_PAYLOADS: 365 * 86_400_000,
      RETENTION_IMPORT_FILES: 7 * 86_400_000,
      RETENTION_SWEEP_INTERVAL_MS: 3_600_000,
    });
    expect(loadConfig({ RETENTION_EMAIL_CONTENT: "10s", RETENTION_WEBHOOK_PAYLOADS: "off", RETENTION_IMPORT_FILES: "0" })).toMatchObject({
      RETENTION_EMAIL_CONTENT: 10_000,
      RETENTION_WEBHOOK_PAYLOADS: null,
      RETENTION_IMPORT_FILES: null,
    });
  });
  it.each([
    [{ INBOUND_SMTP_PORT: "70000" }, /^INBOUND_SMTP_PORT must be the port/],
    [{ INBOUND_TLS_CERT: "c.pem" }, /^INBOUND_TLS_KEY must be the PEM private key.*got nothing while the other is set$/],
    [{ INBOUND_MAX_MESSAGE_BYTES: "12" }, /^INBOUND_MAX_MESSAGE_BYTES must be/],
    [{ SUBMISSION_SMTP_PORT: "-1" }, /^SUBMISSION_SMTP_PORT must be the port the api role takes SMTP submission/],
    [{ SUBMISSION_TLS_KEY: "k.pem" }, /^SUBMISSION_TLS_CERT must be a PEM certificate.*got nothing while the other is set$/],
    [
      { SUBMISSION_SMTP_PORT: "587", SUBMISSION_SMTPS_PORT: "465" },
      /^SUBMISSION_TLS_CERT must be .*got nothing while SUBMISSION_SMTPS_PORT is set$/,
    ],
    [
      { SUBMISSION_SMTPS_PORT: "465", SUBMISSION_TLS_CERT: "c.pem", SUBMISSION_TLS_KEY: "k.pem" },
      /^SUBMISSION_SMTP_PORT must be .*got nothing while SUBMISSION_SMTPS_PORT is set$/,
    ],
    [{ SUBMISSION_MAX_MESSAGE_BYTES: "100" }, /^SUBMISSION_MAX_MESSAGE_BYTES must be/],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" },
      /^OTEL_EXPORTER_OTLP_ENDPOINT must be the http\(s\) base URL of an OTLP\/HTTP receiver.*got "collector:4318"$/,
    ],
    [{ PORT: "abc" }, /^PORT must be an integer from 1 to 65535.*got "abc"$/],
    [{ MAIL_TRANSPORT: "pigeon" }, /^MAIL_TRANSPORT must be outbox, smtp or mx/],
    [{ EVENTSTORE_URL: "mysql://x" }, /^EVENTSTORE_URL must be postgres:\/\/… or esdb:\/\//],
    [{ EVENTSTORE_URL: "esdb://x:2113", TIDINGS_SECRET: secret }, /^DATABASE_URL must be/],
    [{ EVENTSTORE_URL: "postgres://x/db" }, /^TIDINGS_SECRET must be/],
    [{ MAIL_TRANSPORT: "smtp" }, /^SMTP_URL must be/],
    [{ TIDINGS_SECRET: "short" }, /^TIDINGS_SECRET must be at least 32 characters.*got "…"$/],
    [{ LOG_LEVEL: "loud" }, /^LOG_LEVEL must be fatal, error/],
    [{ DNS_SERVERS: "dns.example,1.1.1.1" }, /^DNS_SERVERS must be comma-separated ip, ip:port/],
    [{ DNS_SERVERS: "1.1.1.1:99999" }, /^DNS_SERVERS must be/],
    [{ MX_TLS_REJECT_UNAUTHORIZED: "no" }, /^MX_TLS_REJECT_UNAUTHORIZED must be true or false/],
    [{ DATABASE_PREPARED_STATEMENTS: "yes" }, /^DATABASE_PREPARED_STATEMENTS must be true or false/],
    [{ TRUST_PROXY: "proxy.example" }, /^TRUST_PROXY must be false \(default\), true/],
    [{ TRUST_PROXY: "10.0.0.0/33" }, /^TRUST_PROXY must be/],
    [{ TRUST_PROXY: "12" }, /^TRUST_PROXY must be/],
    [
      { RETENTION_EMAIL_CONTENT: "90" },
      /^RETENTION_EMAIL_CONTENT must be how long .* or 0 or off to keep it for ever \(default 90d\); got "90"$/,
    ],
    [{ RETENTION_SWEEP_INTERVAL_MS: "10" }, /^RETENTION_SWEEP_INTERVAL_MS must be/],
  ])("stops on %j with one line naming the variable", (env, message) => {
    try {
      loadConfig(env);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain("\n");
    }
  });
});
