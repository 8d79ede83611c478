import { execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Resend, type CreateContactOptions } from "resend";
import { createLogger, loadConfig } from "@tidings/core";
import { BOOTSTRAP_TEAM_NAME, teamIdForName } from "@tidings/api";
import { runCommand, serve, type Serving } from "@tidings/cli";
import { migrationStream } from "@tidings/domain";
import { testMode } from "@tidings/postgres";
import { raiseBootstrapTeamRateLimit } from "../support/rateLimit.js";
import { startTestServer, type TestServer } from "../support/testServer.js";
import { succeeded } from "../support/wire.js";

/**
 * `tidings migrate --from … plan | apply | status` between two installations: the source filled through
 * the SDK and held to Resend's default 10 requests/s, the target migrated by the built CLI as a child
 * process, killed part way and resumed, then compared with the source through the SDK on both.
 */

const cli = join(import.meta.dirname, "../../services/cli/dist/main.js");
const run = promisify(execFile);
/** What the CLI's requests carry: how the source's log tells them from the test's own. */
const MIGRATION_AGENT = "tidings-migrate";

let source: TestServer;
let target: TestServer;
/** Embedded mode: the target served again after the CLI had DATA_DIR to itself. */
let targetAgain: Serving | undefined;
let sourceSdk: Resend;

const targetSdk = () => new Resend(target.token, { baseUrl: targetAgain?.url ?? target.url });
const cliEnv = () => ({ PATH: process.env.PATH, ...target.env, LOG_LEVEL: "warn" });
const args = (...words: string[]) => ["migrate", "--from", source.url, "--key", source.token, ...words];
const tidings = (...words: string[]) => run(process.execPath, [cli, ...words], { env: cliEnv(), timeout: 120_000 });
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The source's data: every kind the migration copies, small enough that a whole apply at 10 requests/s
 * takes a few seconds (7 lists, then 3 requests per contact, 1 per template and domain).
 */
async function fillSource(resend: Resend): Promise<void> {
  await succeeded(() => resend.contactProperties.create({ key: "plan", type: "string", fallbackValue: "free" }));
  await succeeded(() => resend.contactProperties.create({ key: "seats", type: "number" }));
  const news = await succeeded(() => resend.topics.create({ name: "News", defaultSubscription: "opt_in", description: "Monthly" }));
  const offers = await succeeded(() => resend.topics.create({ name: "Offers", defaultSubscription: "opt_out" }));
  const customers = await succeeded(() => resend.segments.create({ name: "Customers" }));
  const trial = await succeeded(() => resend.segments.create({ name: "Trial" }));
  const people: (Omit<CreateContactOptions, "segments"> & { segments: { id: string }[] })[] = [
    { email: "ada@example.test", firstName: "Ada", lastName: "Lovelace", properties: { plan: "pro", seats: 12 }, segments: [customers] },
    { email: "grace@example.test", firstName: "Grace", properties: { plan: "team" }, segments: [customers, trial] },
    { email: "alan@example.test", lastName: "Turing", unsubscribed: true, segments: [trial] },
    { email: "edsger@example.test", firstName: "Edsger", properties: { seats: 3 }, segments: [] },
    { email: "barbara@example.test", firstName: "Barbara", segments: [customers] },
  ];
  for (const [i, { segments, ...person }] of people.entries()) {
    const topics = [
      { id: news.id, subscription: i % 2 === 0 ? ("opt_out" as const) : ("opt_in" as const) },
      ...(i === 1 ? [{ id: offers.id, subscription: "opt_in" as const }] : []),
    ];
    await succeeded(() => resend.contacts.create({ ...person, segments: segments.map((s) => ({ id: s.id })), topics }));
  }
  const welcome = await succeeded(() =>
    resend.templates.create({
      name: "Welcome",
      alias: "welcome",
      subject: "Welcome, {{{NAME}}}",
      html: "<p>Hi {{{NAME|there}}}, you have {{{SEATS}}} seats</p>",
      text: "Hi {{{NAME|there}}}",
      from: "Acme <hello@acme.test>",
      replyTo: ["help@acme.test"],
      variables: [
        { key: "NAME", type: "string", fallbackValue: "there" },
        { key: "SEATS", type: "number", fallbackValue: 1 },
      ],
    }),
  );
  await succeeded(() => resend.templates.publish(welcome.id));
  await succeeded(() => resend.templates.create({ name: "Draft notice", subject: "Soon", html: "<p>Soon</p>" }));
  await succeeded(() => resend.webhooks.create({ endpoint: "https://hooks.acme.test/resend", events: ["email.sent", "email.delivered"] }));
  const quiet = await succeeded(() => resend.webhooks.create({ endpoint: "https://hooks.acme.test/bounces", events: ["email.bounced"] }));
  await succeeded(() => resend.webhooks.update(quiet.id, { status: "disabled" }));
  await succeeded(() => resend.domains.create({ name: "mail.acme.test", openTracking: true, customReturnPath: "bounce" }));
}

/** Sets the source team's limit and lets the api's one-second cache of it expire. */
async function sourceRateLimit(requestsPerSecond: number): Promise<void> {
  await raiseBootstrapTeamRateLimit(source.serving.runtime, requestsPerSecond);
  await wait(1_200);
}

beforeAll(async () => {
  [source, target] = await Promise.all([startTestServer(), startTestServer()]);
  sourceSdk = new Resend(source.token, { baseUrl: source.url });
  await sourceRateLimit(100_000);
  await fillSource(sourceSdk);
  // From here on the source answers as Resend does by default: the migration must keep within it.
  await sourceRateLimit(10);
  // Embedded mode: a serving process would run the CLI's commands itself (adminChannel.ts), out of reach
  // of a SIGKILL sent to the CLI; the target's DATA_DIR is left to the CLI while it migrates.
  if (testMode() === "embedded") await target.serving.stop();
}, 180_000);

afterAll(async () => {
  await targetAgain?.stop();
  await Promise.all([source?.stop(), target?.stop()]);
});

/** Every item of a list, through the SDK's pages. */
async function all<T extends { id: string }>(
  list: (page: { limit: number; after?: string }) => PromiseLike<{
    data: { data: T[]; has_more?: boolean } | null;
    error: { name: string; message: string } | null;
    headers: Record<string, string> | null;
  }>,
): Promise<T[]> {
  const items: T[] = [];
  for (let after: string | undefined; ;) {
    const page = await succeeded(() => list({ limit: 100, ...(after ? { after } : {}) }));
    items.push(...page.data);
    if (!page.has_more) return items;
    after = page.data[page.data.length - 1]!.id;
  }
}

const withoutIds = <T extends object>(value: T, drop: string[] = []): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(value).filter(([k]) => !["id", "created_at", "createdAt", "updated_at", "updatedAt", ...drop].includes(k)),
  );
const byKey = <T>(items: T[], key: (item: T) => string) => [...items].sort((a, b) => key(a).localeCompare(key(b)));

/** Everything the migration copies, as the SDK shows it, without ids and timestamps. */
async function account(resend: Resend) {
  const properties = byKey(await all((p) => resend.contactProperties.list(p)), (p) => p.key).map((p) => withoutIds(p));
  // topics.list takes no page options in the SDK: its first page of 20 holds these.
  const topics = byKey((await succeeded(() => resend.topics.list())).data, (t) => t.name).map((t) => withoutIds(t));
  const segments = byKey(await all((p) => resend.segments.list(p)), (s) => s.name).map((s) => withoutIds(s));
  const contacts = [];
  for (const listed of byKey(await all((p) => resend.contacts.list(p)), (c) => c.email)) {
    const contact = await succeeded(() => resend.contacts.get(listed.id));
    const memberships = await all((p) => resend.contacts.segments.list({ contactId: listed.id, ...p }));
    const subscriptions = await all((p) => resend.contacts.topics.list({ id: listed.id, ...p }));
    contacts.push({
      ...withoutIds(contact),
      segments: memberships.map((s) => s.name).sort(),
      topics: byKey(subscriptions, (t) => t.name).map((t) => withoutIds(t)),
    });
  }
  const templates = [];
  for (const listed of byKey(await all((p) => resend.templates.list(p)), (t) => t.name)) {
    const template = await succeeded(() => resend.templates.get(listed.id));
    templates.push(<Record<string, unknown>>{
      ...withoutIds(template, ["published_at", "current_version_id"]),
      published: template.published_at !== null,
      variables: template.variables?.map((v) => withoutIds(v)),
    });
  }
  const webhooks = [];
  for (const listed of byKey(await all((p) => resend.webhooks.list(p)), (w) => w.endpoint)) {
    const webhook = await succeeded(() => resend.webhooks.get(listed.id));
    webhooks.push({ ...withoutIds(webhook, ["signing_secret"]), secret: webhook.signing_secret });
  }
  const domains = [];
  for (const listed of byKey(await all((p) => resend.domains.list(p)), (d) => d.name)) {
    const domain = await succeeded(() => resend.domains.get(listed.id));
    domains.push({ ...withoutIds(domain), records: domain.records.map((r) => (r.record === "DKIM" ? { ...r, value: "(own key)" } : r)) });
  }
  return { properties, topics, segments, contacts, templates, webhooks, domains };
}

interface ApplyResult {
  migration_id: string;
  copied: Record<string, number>;
  already_copied: Record<string, number>;
  webhooks: { endpoint: string; signing_secret: string | null }[];
  domains: { name: string; records: { action: string; record: string; type: string }[] }[];
  requests: number;
  rate_limited: number;
  seconds: number;
}

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
/** Requests the CLI's completed runs said they sent: the source's log must hold at least these. */
let requestsCounted = 0;

describe.sequential("tidings migrate --from", () => {
  it("plan lists what it will copy, the DNS records to change and to keep, and what it does not copy", async () => {
    const { stdout } = await tidings(...args("plan", "--json"));
    const plan = JSON.parse(stdout);
    expect(plan.resources).toEqual({
      contact_property: { total: 2, copied: 0, toCopy: 2 },
      topic: { total: 2, copied: 0, toCopy: 2 },
      segment: { total: 2, copied: 0, toCopy: 2 },
      contact: { total: 5, copied: 0, toCopy: 5 },
      template: { total: 2, copied: 0, toCopy: 2 },
      webhook: { total: 2, copied: 0, toCopy: 2 },
      domain: { total: 1, copied: 0, toCopy: 1 },
    });
    expect(plan.not_copied.join("\n")).toMatch(/emails and broadcasts already sent/);
    const [domain] = plan.domains;
    expect(domain.name).toBe("mail.acme.test");
    // Same install defaults on both sides: only the key is new; the return path, tracking and DMARC records stay valid.
    const actions = Object.fromEntries(
      domain.records.map((r: { record: string; type: string; action: string }) => [`${r.record} ${r.type}`, r.action]),
    );
    expect(actions).toEqual({ "DKIM TXT": "change", "SPF MX": "keep", "SPF TXT": "keep", "Tracking CNAME": "keep", "DMARC TXT": "keep" });
    const { stdout: text } = await tidings(...args("plan"));
    expect(text).toContain("Not copied:");
    expect(text).toMatch(/emails and broadcasts already sent/);
    expect(text).toMatch(/change\s+DKIM\s+TXT\s+\w+\._domainkey\.mail\.acme\.test\s+<new key, generated by apply>/);
    expect(text).toMatch(/stays valid\s+SPF\s+MX\s+bounce\.mail\.acme\.test/);
    requestsCounted += 8 * 2;
  }, 120_000);

  it("apply, killed part way, goes on where it stopped when run again, copying nothing twice", async () => {
    const child = spawn(process.execPath, [cli, ...args("apply")], { env: cliEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let progress = "";
    child.stderr.on("data", (d) => (progress += d));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once("exit", (code, signal) => resolve(signal ?? code)));
    const started = Date.now();
    while (!/copied contact 2\/5/.test(progress)) {
      if (Date.now() - started > 60_000) throw new Error(`no progress within 60 s:\n${progress}`);
      await wait(20);
    }
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    expect(progress).toMatch(/copied contact property 2\/2: \w+/);

    const { stdout: statusText } = await tidings(...args("status", "--json"));
    const status = JSON.parse(statusText);
    expect(status.status).toBe("in_progress");
    expect(status.copied.contact).toBeGreaterThanOrEqual(2);
    expect(status.copied.webhook).toBe(0);

    const resumedAt = Date.now();
    const { stdout, stderr } = await tidings(...args("apply", "--json"));
    const resumed = JSON.parse(stdout) as ApplyResult;
    console.log(`migrate: resumed apply took ${Date.now() - resumedAt} ms, ${resumed.requests} requests; progress:\n${stderr}`);
    expect(sum(resumed.already_copied)).toBe(status.copied.contact + 6);
    expect(sum(resumed.copied) + sum(resumed.already_copied)).toBe(16);
    expect(resumed.rate_limited).toBe(0);
    expect(resumed.webhooks.map((w) => w.endpoint).sort()).toEqual(["https://hooks.acme.test/bounces", "https://hooks.acme.test/resend"]);
    for (const w of resumed.webhooks) expect(w.signing_secret).toMatch(/^whsec_/);
    expect(resumed.domains[0]!.records.find((r) => r.record === "DKIM")!.action).toBe("change");
    requestsCounted += resumed.requests;
  }, 180_000);

  it("leaves every copied resource as the source has it, but for ids and the new secrets", async () => {
    if (testMode() === "embedded") {
      const config = loadConfig(target.env);
      targetAgain = await serve(config, createLogger(config.LOG_LEVEL), "all", { commands: runCommand });
    }
    const here = targetSdk();
    await raiseBootstrapTeamRateLimit(targetAgain?.runtime ?? target.serving.runtime);
    await sourceRateLimit(100_000);
    const expected = await account(sourceSdk);
    let copied = await account(here);
    // The target's projector catches up with what the CLI wrote.
    for (const deadline = Date.now() + 60_000; JSON.stringify(withoutSecrets(copied)) !== JSON.stringify(withoutSecrets(expected));) {
      if (Date.now() > deadline) break;
      await wait(500);
      copied = await account(here);
    }
    expect(withoutSecrets(copied)).toEqual(withoutSecrets(expected));
    expect(copied.contacts).toHaveLength(5);
    expect(copied.templates.map((t) => [t.name, t.status])).toEqual([
      ["Draft notice", "draft"],
      ["Welcome", "published"],
    ]);
    for (const [i, webhook] of copied.webhooks.entries()) expect(webhook.secret).not.toBe(expected.webhooks[i]!.secret);
    await sourceRateLimit(10);
  }, 180_000);

  it("a second apply copies nothing: one run record in the migration's stream, and no new resource", async () => {
    const runtime = targetAgain?.runtime ?? target.serving.runtime;
    const before = await account(targetSdk());
    const { stdout: statusText } = await tidings(...args("status", "--json"));
    const { migration_id: migrationId } = JSON.parse(statusText);
    const eventsBefore = await runtime.store.readStream(migrationStream(migrationId));

    const { stdout } = await tidings(...args("apply", "--json"));
    const again = JSON.parse(stdout) as ApplyResult;
    expect(sum(again.copied)).toBe(0);
    expect(sum(again.already_copied)).toBe(16);
    expect(again.rate_limited).toBe(0);
    requestsCounted += again.requests;

    const eventsAfter = await runtime.store.readStream(migrationStream(migrationId));
    expect(eventsAfter.slice(eventsBefore.length).map((e) => [e.type, e.data])).toEqual([
      ["MigrationCompleted", expect.objectContaining({ migrationId, copied: 0 })],
    ]);
    expect(eventsBefore.filter((e) => e.type === "ResourceCopied")).toHaveLength(16);
    expect(eventsAfter[0]!.metadata).toMatchObject({ actor: "cli", teamId: teamIdForName(BOOTSTRAP_TEAM_NAME) });
    await raiseBootstrapTeamRateLimit(runtime);
    expect(await account(targetSdk())).toEqual(before);

    const { stdout: done } = await tidings(...args("status"));
    expect(done).toMatch(/completed/);
    expect(done).toMatch(/contacts\s+5 copied/);
  }, 180_000);

  it("kept within the source's 10 requests/s: its log shows no request of the migration refused", async () => {
    await sourceRateLimit(100_000);
    let logged: { response_status: number; user_agent: string | null }[] = [];
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await wait(500)) {
      logged = (await all((p) => sourceSdk.logs.list(p))).filter((l) => l.user_agent === MIGRATION_AGENT);
      if (logged.length >= requestsCounted) break;
    }
    console.log(`migrate: the source logged ${logged.length} requests of the migration (completed runs counted ${requestsCounted})`);
    expect(logged.length).toBeGreaterThanOrEqual(requestsCounted);
    expect(logged.filter((l) => l.response_status === 429)).toEqual([]);
    expect(logged.every((l) => l.response_status === 200)).toBe(true);
  }, 120_000);
});

function withoutSecrets(a: Awaited<ReturnType<typeof account>>) {
  return { ...a, webhooks: a.webhooks.map(({ secret: _secret, ...w }) => w) };
}
