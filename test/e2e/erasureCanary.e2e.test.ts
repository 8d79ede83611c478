import { execFile } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import type { Resend } from "resend";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { broadcastEmailId, settings } from "@tidings/core";
import type { Finding } from "../support/canarySearch.js";
import { describeFindings, searchDeployment } from "../support/deploymentCanaries.js";
import { startLoggedMailingServer, type LoggedMailingServer } from "../support/loggedMailingServer.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhookReceiver.js";
import { paced, succeeded } from "../support/wire.js";

/**
 * #23's canary test: a person with unique values (address, names, property values) goes through every
 * path that copies them (a CSV import, transactional mail, a personalised broadcast, an automation run
 * started by a custom event, webhooks), is erased, and then no copy the deployment keeps holds any of
 * those values in any encoding, while the history still verifies and its counts stay (docs/privacy.md).
 */

const cli = join(import.meta.dirname, "../../services/cli/dist/main.js");
const run = promisify(execFile);

/** The random middle of each canary: twelve letters and digits, so no unrelated value, nor any base64, holds it by chance. */
const token = () => Array.from(randomBytes(12), (byte) => "abcdefghijkmnopqrstuvwxyz23456789"[byte % 33]).join("");

/** A person with nothing in common with any other value the deployment holds. */
function aPerson() {
  const person = {
    address: `canary.${token()}@example.com`,
    firstName: `Quin${token()}a`,
    lastName: `Mor${token()}ley`,
    plan: `plan-${token()}-gold`,
    nickname: `nick-${token()}-name`,
  };
  // A finding names the canary by what it is: "address", "firstName"…
  const names = Object.fromEntries(Object.entries(person).map(([name, value]) => [value, name]));
  return { ...person, canaries: Object.values(person), names };
}

/** Polls `check` until it answers something truthy; fails naming `what` after `timeoutMs`. */
async function until<T>(what: string, check: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ; await sleep(100)) {
    const answer = await check();
    if (answer) return answer;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

/** The built CLI, as an operator runs it: in embedded mode it hands the command to the serving process. */
async function tidings(deployment: LoggedMailingServer, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], {
      env: { PATH: process.env.PATH, ...deployment.server.env, LOG_LEVEL: "warn" },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof code !== "number") throw error;
    return { code, stdout: stdout ?? "", stderr: stderr ?? "" };
  }
}

/** Where each deployment's log file ended when the running test began. */
const logStarts = new Map<LoggedMailingServer, number>();
const markLogStart = (logged: LoggedMailingServer | undefined) => logged && logStarts.set(logged, statSync(logged.logFile).size);

/** A failing test shows what the service logged at error level meanwhile: a 500's cause is there, under its request id. */
function showLoggedErrors(logged: LoggedMailingServer | undefined, failed: boolean) {
  if (!failed || !logged) return;
  const errors = readFileSync(logged.logFile)
    .subarray(logStarts.get(logged) ?? 0)
    .toString("utf8")
    .split("\n")
    .filter((line) => /"level":(50|60)/.test(line));
  if (errors.length > 0) console.error(`the service logged ${errors.length} error(s):\n${errors.slice(-10).join("\n")}`);
}

const expectNoCanary = (findings: Finding[], names?: Record<string, string>) =>
  expect.soft(findings.length, describeFindings(findings, names)).toBe(0);

let deployment: LoggedMailingServer;
let receiver: WebhookReceiver;
let resend: Resend;
let webhookId: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  deployment = await startLoggedMailingServer({ WEBHOOK_ALLOW_PRIVATE: "true" });
  resend = deployment.resend;
  const webhook = await succeeded(() =>
    resend.webhooks.create({
      endpoint: `${receiver.url}/hooks`,
      events: [
        "contact.created",
        "contact.updated",
        "contact.deleted",
        "contact.topics.updated",
        "email.sent",
        "email.delivered",
        "email.delivery_delayed",
        "email.bounced",
        "email.complained",
        "email.failed",
        "email.suppressed",
      ],
    }),
  );
  webhookId = webhook.id;
});
beforeEach(() => void markLogStart(deployment));
afterEach(({ task }) => showLoggedErrors(deployment, (task.result?.errors?.length ?? 0) > 0));
afterAll(async () => {
  await deployment?.stop();
  await receiver?.close();
});

const hooks = () => receiver.at("/hooks").map((r) => JSON.parse(r.body) as { type: string; data: { email_id?: string; id?: string } });

/** Waits until the webhook saga has delivered `count` events in all, each with its attempt recorded as a success. */
const webhooksSettled = (count: number) =>
  until(`${count} webhook deliveries to succeed`, async () => {
    if (hooks().length < count) return false;
    const listed = (await succeeded(() => resend.webhooks.events.list({ webhookId, limit: 100 }))).data;
    return listed.length >= count && listed.every((event) => event.status === "success");
  });

/** Waits until the sink has `count` messages to `address`. */
const mailTo = (address: string, count: number) =>
  deployment.sink.waitFor((received) => received.filter((m) => m.envelope.to.includes(address)).length >= count, 20_000);

/** Waits until the email has reached `delivered`, and its delivery's webhooks (sent, delivered) have come. */
const deliveredWithWebhooks = (emailId: string) =>
  until(`email ${emailId} delivered and its webhooks received`, async () => {
    const email = await succeeded(() => resend.emails.get(emailId));
    const types = hooks()
      .filter((h) => h.data.email_id === emailId)
      .map((h) => h.type);
    return email.last_event === "delivered" && types.includes("email.delivered") && types.includes("email.sent");
  });

describe("erasing a contact who was imported, mailed, broadcast to, enrolled and watched", () => {
  it("leaves no copy of their values anywhere, while the history verifies and the counts stay", { timeout: 120_000 }, async () => {
    const person = aPerson();
    const witness = `witness.${token()}@example.com`;
    await succeeded(() => resend.contactProperties.create({ key: "plan", type: "string" }));
    await succeeded(() => resend.contactProperties.create({ key: "nickname", type: "string" }));
    const segment = await succeeded(() => resend.segments.create({ name: "Customers" }));
    await succeeded(() => resend.events.create({ name: "user.signed_up", schema: { full_name: "string" } }));
    const welcome = await succeeded(() =>
      resend.templates
        .create({
          name: "Welcome",
          subject: "Welcome {{{NAME}}}",
          html: "<p>Hi {{{NAME}}}, you signed up as {{{FULL_NAME}}}</p>",
          from: "Acme <hello@acme.test>",
          variables: [
            { key: "NAME", type: "string", fallbackValue: "there" },
            { key: "FULL_NAME", type: "string", fallbackValue: null },
          ],
        })
        .publish(),
    );
    const automation = await succeeded(() =>
      resend.automations.create({
        name: "Onboarding",
        status: "enabled",
        steps: [
          { key: "signed_up", type: "trigger", config: { eventName: "user.signed_up" } },
          {
            key: "welcome",
            type: "send_email",
            config: {
              template: { id: welcome.id, variables: { NAME: { var: "contact.first_name" }, FULL_NAME: { var: "payload.full_name" } } },
            },
          },
        ],
        connections: [{ from: "signed_up", to: "welcome" }],
      }),
    );

    // The CSV: the person, and a witness whose broadcast email must stay whole (docs/privacy.md).
    const csv = [
      "email,first,last,plan",
      `${person.address},${person.firstName},${person.lastName},${person.plan}`,
      `${witness},Wit,Ness,basic`,
    ];
    const imported = await succeeded(() =>
      resend.contacts.imports.create({
        file: new Blob([csv.join("\n")], { type: "text/csv" }),
        columnMap: { email: "email", firstName: "first", lastName: "last", properties: { plan: { column: "plan" } } },
        onConflict: "upsert",
        segments: [{ id: segment.id }],
      }),
    );
    await until(
      "the import to complete",
      async () => (await succeeded(() => resend.contacts.imports.get(imported.id))).status === "completed",
    );
    // An application looks the contact up by address, and sets a property the import did not have.
    const contact = await succeeded(() => resend.contacts.get(person.address));
    expect(contact.first_name).toBe(person.firstName);
    await succeeded(() => resend.contacts.update({ id: contact.id, properties: { nickname: person.nickname } }));

    const transactional = await succeeded(() =>
      resend.emails.send({
        from: "Acme <hello@acme.test>",
        to: person.address,
        subject: `Your receipt, ${person.firstName} ${person.lastName}`,
        html: `<p>Dear ${person.firstName}, thank you for choosing ${person.plan} (${person.nickname}).</p>`,
      }),
    );
    const broadcast = await succeeded(() =>
      resend.broadcasts.create({
        segmentId: segment.id,
        from: "Acme News <news@acme.test>",
        subject: "News for {{{contact.first_name|you}}}",
        html: "<p>Hi {{{contact.first_name|there}}} {{{contact.last_name}}}, on {{{contact.plan}}}</p>",
        name: "News",
        send: true,
      }),
    );
    await succeeded(() =>
      resend.events.send({
        event: "user.signed_up",
        email: person.address,
        payload: { full_name: `${person.firstName} ${person.lastName}` },
      }),
    );

    // Everything settles: three emails to the person and one to the witness delivered, the run ended, every webhook sent.
    await mailTo(person.address, 3);
    await mailTo(witness, 1);
    const runs = await until("the automation run to complete", async () => {
      const listed = await succeeded(() => resend.automations.runs.list({ automationId: automation.id, status: "completed" }));
      return listed.data.length > 0 && listed.data;
    });
    const runEmail = (await succeeded(() => resend.automations.runs.get({ automationId: automation.id, runId: runs[0]!.id }))).steps.find(
      (s) => s.key === "welcome",
    )!.output as { email_id: string };
    const mail = [transactional.id, broadcastEmailId(broadcast.id, contact.id), runEmail.email_id];
    const witnessMail = broadcastEmailId(broadcast.id, (await succeeded(() => resend.contacts.get(witness))).id);
    for (const id of [...mail, witnessMail]) await deliveredWithWebhooks(id);
    await until("the contact.updated webhook", async () => hooks().some((h) => h.type === "contact.updated"));
    const counted = await until("the broadcast's counts to settle", async () => {
      const got = (await succeeded(() => resend.broadcasts.get(broadcast.id))) as unknown as { counts: Record<string, number> };
      return got.counts.delivered === 2 && got.counts;
    });
    await webhooksSettled(hooks().length);
    const emails = async () => (await succeeded(() => resend.emails.list({ limit: 100 }))).data.map((e) => e.id).sort();
    const emailsBefore = await emails();
    // The search finds what is there: the read models hold the person in clear before the erasure.
    expect((await searchDeployment(deployment, person.canaries)).length).toBeGreaterThan(0);

    // From here on every check is soft: a failure still runs the rest, so one run lists every copy left.
    const erasure = await paced(() => resend.contacts.remove(contact.id));
    expect.soft(erasure.error, "DELETE /contacts/:id").toBeNull();
    if (!erasure.error) {
      expect.soft(erasure.data).toEqual({ object: "contact", contact: contact.id, deleted: true });
      expect.soft((await paced(() => resend.contacts.remove(contact.id))).data, "DELETE again").toEqual(erasure.data);
      await until("the contact.deleted webhook", async () => hooks().some((h) => h.type === "contact.deleted" && h.data.id === contact.id));
    }
    await webhooksSettled(hooks().length);

    expectNoCanary(await searchDeployment(deployment, person.canaries), person.names);

    const verified = await tidings(deployment, "audit", "verify");
    expect.soft(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect.soft(verified.stdout).toMatch(/^intact/);
    const after = (await succeeded(() => resend.broadcasts.get(broadcast.id))) as unknown as { counts: Record<string, number> };
    expect.soft(after.counts, "the broadcast's counts").toEqual(counted);
    expect.soft(await emails(), "the emails listed").toEqual(emailsBefore);
    for (const id of mail)
      expect
        .soft(await succeeded(() => resend.emails.get(id)), `GET /emails/${id}`)
        .toMatchObject({ id, last_event: "delivered", to: [expect.stringMatching(/^erased:/)] });
    expect.soft(await succeeded(() => resend.emails.get(witnessMail)), "the witness's broadcast email").toMatchObject({
      to: [witness],
      html: expect.stringContaining("Hi Wit Ness"),
    });
  });
});

describe("tidings erase <address>", () => {
  it("erases a recipient of transactional mail who is no contact, and prints what it reached", { timeout: 90_000 }, async () => {
    const person = aPerson();
    const sent = await succeeded(() =>
      resend.emails.send({
        from: "Acme <hello@acme.test>",
        to: person.address,
        subject: `Your password, ${person.firstName}`,
        html: `<p>${person.firstName} ${person.lastName}: your ${person.plan} account (${person.nickname}) is ready.</p>`,
      }),
    );
    await mailTo(person.address, 1);
    await deliveredWithWebhooks(sent.id);
    await webhooksSettled(hooks().length);

    const erased = await tidings(deployment, "erase", person.address);
    expect.soft(erased.code, erased.stdout + erased.stderr).toBe(0);
    // What it reached, as #23 asks: the number of events, rows and files.
    expect.soft(erased.stdout, "the number of events reached").toMatch(/\d+ events?\b|\bevents? \d+/);
    expect.soft(erased.stdout, "the number of rows reached").toMatch(/\d+ rows?\b|\brows? \d+/);
    expect.soft(erased.stdout, "the number of files reached").toMatch(/\d+ files?\b|\bfiles? \d+/);

    expectNoCanary(await searchDeployment(deployment, person.canaries), person.names);
    expect
      .soft(await succeeded(() => resend.emails.get(sent.id)), `GET /emails/${sent.id}`)
      .toMatchObject({ last_event: "delivered", to: [expect.stringMatching(/^erased:/)] });
  });
});

/** Every retention setting there is (docs/privacy.md, "Retention"), each set to a few seconds. */
const retentionSettings = Object.keys(settings).filter((key) => key.startsWith("RETENTION_") && !key.endsWith("_MS"));
const hasRetention = retentionSettings.includes("RETENTION_EMAIL_CONTENT");
if (!hasRetention) console.warn("the retention test is skipped: there is no RETENTION_EMAIL_CONTENT setting yet");

describe.skipIf(!hasRetention)("content past its retention", () => {
  // Long enough for the test to see the content stored before it expires, on a loaded machine.
  const retention = "5s";
  let short: LoggedMailingServer;
  beforeAll(async () => {
    const env = Object.fromEntries(retentionSettings.map((key) => [key, retention]));
    if ("RETENTION_SWEEP_INTERVAL_MS" in settings) env.RETENTION_SWEEP_INTERVAL_MS = "1000";
    short = await startLoggedMailingServer({ ...env, WEBHOOK_ALLOW_PRIVATE: "true" });
  });
  beforeEach(() => void markLogStart(short));
  afterEach(({ task }) => showLoggedErrors(short, (task.result?.errors?.length ?? 0) > 0));
  afterAll(() => short?.stop());

  it("is shredded and scrubbed everywhere, while the email and what happened to it stay", { timeout: 90_000 }, async () => {
    const subject = `subject-${token()}-line`;
    const body = `body-${token()}-text`;
    const names = { [subject]: "subject", [body]: "body" };
    await succeeded(() =>
      short.resend.webhooks.create({ endpoint: `${receiver.url}/retention`, events: ["email.sent", "email.delivered"] }),
    );
    const sent = await succeeded(() =>
      short.resend.emails.send({ from: "Acme <hello@acme.test>", to: "reader@example.com", subject, html: `<p>${body}</p>` }),
    );
    // The search finds the content while it is kept: the email's read model and the request log hold it.
    await until("the content to be stored", async () => (await searchDeployment(short, [subject, body])).length > 0, 4_000);
    await short.sink.waitFor((received) => received.length >= 1, 20_000);
    await until(
      "the email to be delivered",
      async () => (await succeeded(() => short.resend.emails.get(sent.id))).last_event === "delivered",
    );
    await receiver.waitFor("/retention", 2, 20_000);

    let findings: Finding[] = [];
    await until(
      "the content to expire",
      async () => (findings = await searchDeployment(short, [subject, body])).length === 0,
      30_000,
    ).catch(() => undefined);
    expectNoCanary(findings, names);
    expect(await succeeded(() => short.resend.emails.get(sent.id))).toMatchObject({
      id: sent.id,
      to: ["reader@example.com"],
      last_event: "delivered",
    });
  });
});
