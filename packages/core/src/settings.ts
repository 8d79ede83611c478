import { z } from "zod";
import {
  between,
  dnsLabel,
  flag,
  hostname,
  int,
  isProxyAddress,
  isResolverAddress,
  milliseconds,
  retention,
  share,
  url,
} from "./settingKinds.js";

/**
 * Settings come only from the environment. Every variable has a description of what it accepts, used
 * both in the one-line start-up error and in the README's settings table, so the two cannot drift.
 */
const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
const transports = ["outbox", "smtp", "mx"] as const;

export const settings = {
  PORT: { schema: int(1, 65535).default(3000), accepts: "an integer from 1 to 65535 (default 3000)" },
  HOST: { schema: z.string().min(1).default("127.0.0.1"), accepts: "an interface address to listen on (default 127.0.0.1)" },
  TRUST_PROXY: {
    schema: z
      .string()
      .default("false")
      .refine((v) => /^(true|false|[1-9])$/.test(v) || v.split(",").every((part) => isProxyAddress(part.trim())))
      .transform((v): boolean | number | string[] =>
        v === "true" ? true : v === "false" ? false : /^[1-9]$/.test(v) ? Number(v) : v.split(",").map((part) => part.trim()),
      ),
    accepts:
      "false (default), true (trust X-Forwarded-For from any hop), a number of proxy hops from 1 to 9, or comma-separated proxy addresses or CIDRs: whom to believe about the client's address",
  },
  DATA_DIR: { schema: z.string().min(1).default("./data"), accepts: "a directory for embedded data, secret and outbox (default ./data)" },
  PUBLIC_URL: { schema: url(["http:", "https:"]).optional(), accepts: "the http(s) URL clients reach (default http://localhost:$PORT)" },
  EVENTSTORE_URL: {
    schema: url(["postgres:", "postgresql:", "esdb:", "esdb+discover:"]).optional(),
    accepts: "postgres://… or esdb://… (unset: embedded PGlite in DATA_DIR)",
  },
  DATABASE_URL: {
    schema: url(["postgres:", "postgresql:"]).optional(),
    accepts: "postgres://… for read models (default: EVENTSTORE_URL when it is postgres)",
  },
  DATABASE_PREPARED_STATEMENTS: flag(
    "true",
    "true or false: send repeated statements to PostgreSQL as prepared statements (default true; false behind a pooler that cannot keep them, such as PgBouncer in transaction mode before 1.21)",
  ),
  NATS_URL: {
    schema: url(["nats:", "tls:", "ws:", "wss:"]).optional(),
    accepts: "nats://host:port (unset: the bus lives in the database)",
  },
  NATS_PREFIX: {
    schema: z
      .string()
      .regex(/^[A-Za-z0-9_]{1,32}$/)
      .optional(),
    accepts: "1 to 32 letters, digits or _: keeps this install's streams and subjects apart on a shared NATS server",
  },
  MAIL_TRANSPORT: { schema: z.enum(transports).default("outbox"), accepts: "outbox, smtp or mx (default outbox)" },
  SMTP_URL: {
    schema: url(["smtp:", "smtps:"]).optional(),
    accepts: "smtp://user:pass@host:port or smtps://… (required when MAIL_TRANSPORT=smtp)",
  },
  MAIL_CONCURRENCY: between(1, 256, 32, "SMTP connections open at once (the relay's pool, or to all MX hosts)"),
  DNS_SERVERS: {
    schema: z
      .string()
      .refine((v) => v.split(",").every(isResolverAddress))
      .optional()
      .transform((v) => (v ? v.split(",") : [])),
    accepts: "comma-separated ip, ip:port or [ipv6]:port of the DNS resolvers for MX lookups and domain checks (default: the system's)",
  },
  MX_PORT: between(1, 65535, 25, "the port MX hosts are reached on", "25; another only for tests"),
  MX_TLS_REJECT_UNAUTHORIZED: flag("true", "true or false: verify an MX host's certificate when its domain enforces TLS (default true)"),
  TIDINGS_SECRET: {
    schema: z.string().min(32).optional(),
    accepts: "at least 32 characters (embedded: generated into DATA_DIR when unset)",
  },
  TIDINGS_ALLOW_UNVERIFIED_FROM: {
    schema: z
      .enum(["true", "false"])
      .optional()
      .transform((v) => (v === undefined ? undefined : v === "true")),
    accepts:
      "true or false: accept a `from` on a domain the team has not verified (default true embedded, with a warning; false in server mode)",
  },
  TIDINGS_BOOTSTRAP_TOKEN: {
    schema: z
      .string()
      .regex(/^re_[0-9A-Za-z]{32,}$/)
      .optional(),
    accepts: "re_ followed by at least 32 base62 characters",
  },
  LOG_LEVEL: { schema: z.enum(logLevels).default("info"), accepts: logLevels.join(", ") + " (default info)" },
  HEAP_GROWTH_PERCENT: between(
    0,
    300,
    100,
    "how far past its live objects a serving process's JavaScript heap may grow before a full collection, in percent; 0 leaves it to V8 (up to 300)",
  ),
  LOG_RETENTION_DAYS: between(1, 3650, 30, "days the API request log (GET /logs) is kept"),
  // Retention (docs/privacy.md): content expires by shredding its key; metadata, counts and events stay.
  RETENTION_EMAIL_CONTENT: retention(
    "90d",
    "how long a sent email's subject, bodies, headers, attachments, the relay's replies and the details of its opens and clicks are kept",
  ),
  RETENTION_INBOUND_MESSAGES: retention("30d", "how long a received message, raw and parsed, and its attachments are kept"),
  RETENTION_REQUEST_LOG_BODIES: retention(
    "30d",
    "how long the request log keeps each request's bodies; the row itself stays LOG_RETENTION_DAYS",
  ),
  RETENTION_WEBHOOK_PAYLOADS: retention("30d", "how long a webhook delivery's payload and its receiver's replies are kept"),
  RETENTION_EVENT_PAYLOADS: retention(
    "365d",
    "how long a custom event's payload and the trigger data and outputs of the automation runs it started are kept",
  ),
  RETENTION_IMPORT_FILES: retention("7d", "how long a contact import's row errors, and its file if the import has not ended, are kept"),
  RETENTION_SWEEP_INTERVAL_MS: between(
    1000,
    86_400_000,
    3_600_000,
    "milliseconds between the sagas role's sweeps of expired content",
    "1 h",
  ),
  DELIVERY_RETRY_BACKOFF_MS: milliseconds(
    "60000,300000,1800000,7200000,21600000",
    "comma-separated milliseconds to wait after successive 4xx deferrals; the last repeats until 24 h (default 1 min, 5 min, 30 min, 2 h, 6 h)",
  ),
  BUS_RETRY_BACKOFF_MS: milliseconds(
    "1000,5000,30000,120000,600000",
    "comma-separated milliseconds a saga's message waits after successive failures of its handler; the last repeats until the message is dead-lettered (default 1 s, 5 s, 30 s, 2 min, 10 min)",
  ),
  TIMER_LEASE_MS: between(
    1000,
    3_600_000,
    60_000,
    "milliseconds a sagas process holds a due timer while firing it; a process that dies mid-fire leaves it to fire again after this",
  ),
  DKIM_SELECTOR: {
    schema: z.string().regex(dnsLabel).default("tidings"),
    accepts: "a DNS label: the DKIM selector of every domain's key, published at <selector>._domainkey.<domain> (default tidings)",
  },
  MAIL_HOST: {
    schema: hostname.optional(),
    accepts: "a host name: the MX that domains' return paths point at (default: PUBLIC_URL's host)",
  },
  SPF_INCLUDE: {
    schema: hostname.optional(),
    accepts: "a host name: what domains' SPF records include (default: _spf.<PUBLIC_URL's host>)",
  },
  INBOUND_HOST: {
    schema: hostname.optional(),
    accepts: "a host name: the MX of domains with receiving enabled (default: PUBLIC_URL's host)",
  },
  INBOUND_SMTP_PORT: {
    schema: int(0, 65535).optional(),
    accepts:
      "the port the inbound SMTP listener (received mail, feedback-loop reports) takes, 0 for a free one; unset: no listener (default unset; 25 in production)",
  },
  INBOUND_SMTP_HOST: {
    schema: z.string().min(1).optional(),
    accepts: "an interface address the inbound SMTP listener takes (default: HOST)",
  },
  INBOUND_MAX_MESSAGE_BYTES: {
    schema: int(1024, 100 * 1024 * 1024).default(40 * 1024 * 1024),
    accepts: "the largest message the inbound SMTP listener takes, in bytes, 1024 to 104857600 (default 40 MB); larger ones get 552",
  },
  INBOUND_TLS_CERT: {
    schema: z.string().min(1).optional(),
    accepts: "a PEM certificate file the inbound SMTP listener offers STARTTLS with (with INBOUND_TLS_KEY; default: no STARTTLS)",
  },
  INBOUND_TLS_KEY: { schema: z.string().min(1).optional(), accepts: "the PEM private key file of INBOUND_TLS_CERT" },
  SUBMISSION_SMTP_PORT: {
    schema: int(0, 65535).optional(),
    accepts:
      "the port the api role takes SMTP submission on (mail from applications, authenticated by an API key), 0 for a free one; unset: no listener (default unset; 587 in production)",
  },
  SUBMISSION_SMTPS_PORT: {
    schema: int(0, 65535).optional(),
    accepts:
      "the port SMTP submission also takes with implicit TLS, 0 for a free one; needs SUBMISSION_TLS_CERT (default unset: none; 465 in production)",
  },
  SUBMISSION_SMTP_HOST: {
    schema: z.string().min(1).optional(),
    accepts: "an interface address the SMTP submission listeners take (default: HOST)",
  },
  SUBMISSION_MAX_MESSAGE_BYTES: {
    schema: int(1024, 100 * 1024 * 1024).default(40 * 1024 * 1024),
    accepts: "the largest message SMTP submission takes, in bytes, 1024 to 104857600 (default 40 MB); larger ones get 552",
  },
  SUBMISSION_TLS_CERT: {
    schema: z.string().min(1).optional(),
    accepts:
      "a PEM certificate file SMTP submission offers STARTTLS (and implicit TLS) with; set, AUTH is refused until STARTTLS (with SUBMISSION_TLS_KEY; default: no TLS)",
  },
  SUBMISSION_TLS_KEY: { schema: z.string().min(1).optional(), accepts: "the PEM private key file of SUBMISSION_TLS_CERT" },
  TRACKING_HOST: {
    schema: hostname.optional(),
    accepts: "a host name: the CNAME target of domains' tracking subdomains (default: PUBLIC_URL's host)",
  },
  TRACKING_BASE_URL: {
    schema: z.union([z.enum(["subdomain", "public"]), url(["http:", "https:"])]).default("subdomain"),
    accepts:
      "subdomain (default: https://<tracking_subdomain>.<domain>), public (under PUBLIC_URL, for development) or an http(s) URL: where tracked links and the open pixel point",
  },
  DOMAIN_RECHECK_MS: between(1000, 86_400_000, 300_000, "milliseconds between DNS checks of a domain not yet verified", "5 min"),
  DOMAIN_VERIFY_WINDOW_MS: between(
    1000,
    2_592_000_000,
    259_200_000,
    "milliseconds a domain is re-checked before it is marked failed",
    "72 h",
  ),
  DOMAIN_VERIFIED_RECHECK_MS: between(1000, 2_592_000_000, 86_400_000, "milliseconds between DNS checks of a verified domain", "24 h"),
  WEBHOOK_ALLOW_PRIVATE: flag(
    "false",
    "true or false: deliver webhooks to private, loopback and link-local addresses, and accept http endpoints (default false; true only for tests and development)",
  ),
  WEBHOOK_RETRY_SCHEDULE_MS: milliseconds(
    "0,5000,300000,1800000,7200000,18000000,36000000,36000000",
    "comma-separated milliseconds before each webhook attempt: the first entry for the first attempt, each next one after a failure (default immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h)",
  ),
  // The limit of docs/wire-compatibility.md §10.2; lower it only for tests of the 413.
  CONTACT_IMPORT_MAX_BYTES: between(
    1,
    200 * 1024 * 1024,
    200 * 1024 * 1024,
    "largest CSV `POST /contacts/imports` takes, in bytes",
    "200 MB",
  ),
  // Rows side by side share the event store's round trips; 1 imports one row at a time.
  CONTACT_IMPORT_ROWS_IN_FLIGHT: between(1, 1024, 512, "rows of a contact import under way at once"),
  BROADCAST_EMAILS_PER_SECOND: {
    // A team's own rate (`tidings teams set-broadcast-rate`) overrides it.
    schema: int(1, 100_000).default(1000),
    accepts: "emails per second one team's broadcasts are handed to delivery, 1 to 100000, unless the team has its own rate (default 1000)",
  },
  BROADCAST_EMAILS_IN_FLIGHT: {
    // What a transactional email sent during a broadcast may find ahead of it in the delivery queue.
    schema: int(1, 100_000).default(1000),
    accepts:
      "the most emails of one broadcast handed to delivery and not yet settled, 1 to 100000; fewer while delivery is slow (default 1000)",
  },
  // README, "Reputation guardrails": why these defaults. A test lowers them to pause after a few bounces.
  REPUTATION_BOUNCE_RATE_PAUSE: share(
    0.1,
    "the hard-bounce rate over REPUTATION_WINDOW_HOURS at which a team's or domain's new sends are paused",
  ),
  REPUTATION_COMPLAINT_RATE_PAUSE: share(
    0.005,
    "the complaint rate over REPUTATION_WINDOW_HOURS at which a team's or domain's new sends are paused",
  ),
  REPUTATION_MIN_SENDS: between(
    1,
    1_000_000,
    100,
    "emails with an outcome a team or domain needs in the window before a rate can pause it",
  ),
  REPUTATION_WINDOW_HOURS: between(1, 720, 24, "hours of outcomes the bounce and complaint rates are taken over"),
  // Below the 10 s a deploy commonly waits after SIGTERM before it kills.
  SHUTDOWN_TIMEOUT_MS: between(
    1000,
    600_000,
    8000,
    "milliseconds a process takes to stop after SIGTERM: work under way stops at its next safe point and resumes elsewhere; past this the process exits anyway and logs what it left",
  ),
  // Kept well below the 60 s after which an unanswered idempotency key may be taken over.
  READ_YOUR_WRITES_TIMEOUT_MS: between(0, 60000, 2000, "milliseconds a write waits for its projections"),
  METRICS_PORT: {
    schema: int(0, 65535).optional(),
    accepts: "the port each process serves Prometheus metrics on at /metrics, 0 for a free one; unset: no metrics (default unset)",
  },
  METRICS_HOST: {
    schema: z.string().min(1).default("127.0.0.1"),
    accepts: "an interface address the metrics listener takes (default 127.0.0.1)",
  },
  METRICS_TOKEN: {
    schema: z.string().min(16).optional(),
    accepts: "at least 16 characters: a scrape of /metrics must send it as a bearer token (default unset: none asked)",
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    schema: url(["http:", "https:"]).optional(),
    accepts: "the http(s) base URL of an OTLP/HTTP receiver; spans go to its /v1/traces as JSON (default unset: no tracing, no SDK loaded)",
  },
  // Far above the read-your-writes wait (2 s) and a busy burst's lag: at a minute the projector is down or stuck.
  READY_MAX_PROJECTION_LAG_SECONDS: between(
    0,
    86_400,
    60,
    "seconds the oldest event a projection has not applied may wait before the api's /ready answers 503, 0 for no limit",
  ),
  AUDIT_SEAL_INTERVAL_MS: between(
    0,
    86_400_000,
    300_000,
    "milliseconds between the signed seals the projector role appends over the event store's hashes, 0 for none (default 300000; `tidings audit seal` seals on demand)",
  ),
} as const;
