import { setTimeout as sleep } from "node:timers/promises";
import { simpleParser } from "mailparser";
import type { Resend } from "resend";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReceivedMessage, SmtpSink } from "@tidings/testkit";
import { startMailingServer, type MailingServer } from "../support/mailingServer.js";
import { succeeded } from "../support/wire.js";

/** Automation runs end to end: the resend SDK in, a loopback SMTP sink out, the runs read back through the SDK. */
let mailing: MailingServer;
let sink: SmtpSink;
let resend: Resend;

beforeAll(async () => {
  mailing = await startMailingServer();
  ({ sink, resend } = mailing);
});
afterAll(() => mailing?.stop());

/** Creates and publishes a template whose variables are strings, each with its fallback (or none); resolves with its id. */
const publishedTemplate = async (name: string, subject: string, html: string, fallbacks: Record<string, string | null> = {}) => {
  const variables = Object.entries(fallbacks).map(([key, fallbackValue]) => ({ key, type: "string" as const, fallbackValue }));
  return (await succeeded(() => resend.templates.create({ name, subject, html, from: "Acme <hello@acme.test>", variables }).publish())).id;
};

const messagesTo = async (address: string, count: number, timeoutMs = 15_000) => {
  const mine = (received: ReceivedMessage[]) => received.filter((m) => m.envelope.to.includes(address));
  const found = mine(await sink.waitFor((received) => mine(received).length >= count, timeoutMs));
  return Promise.all(found.map(async (m) => ({ ...m, parsed: await simpleParser(m.raw) })));
};

type Run = NonNullable<Awaited<ReturnType<Resend["automations"]["runs"]["get"]>>["data"]>;
/** Polls the run list until the automation has `count` runs in `status`, then returns them with their steps. */
async function runsOf(
  automationId: string,
  count: number,
  status: "running" | "completed" | "failed" | "cancelled",
  timeoutMs = 15_000,
): Promise<Run[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = await succeeded(() => resend.automations.runs.list({ automationId, status }));
    if (list.data.length >= count)
      return Promise.all(list.data.map((r) => succeeded(() => resend.automations.runs.get({ automationId, runId: r.id }))));
    if (Date.now() > deadline) throw new Error(`automation ${automationId} has ${list.data.length} ${status} runs, expected ${count}`);
    await sleep(100);
  }
}
/** Polls until the automation's `count` running runs all wait at step `key`, for up to 10 s. */
/** Waits until `count` runs are running, each waiting at step `key`; fails after a minute. */
async function parkedAt(automationId: string, count: number, key: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const runs = await runsOf(automationId, count, "running", 60_000);
    const steps = runs.map((r) => stepsOf(r)[key]?.status);
    if (runs.length === count && steps.every((status) => status === "waiting")) return;
    if (Date.now() > deadline) throw new Error(`automation ${automationId}: step ${key} of its running runs is ${steps.join(", ")}`);
    await sleep(50);
  }
}

type Graph = Pick<Parameters<Resend["automations"]["create"]>[0], "steps" | "connections">;
/** Creates the automation, enabled; resolves with its id. */
const enabledAutomation = async (name: string, graph: Graph) =>
  (await succeeded(() => resend.automations.create({ name, status: "enabled", ...graph }))).id;

const instant = (wire: string) => Date.parse(wire.replace(" ", "T").replace("+00", "Z"));
const stepsOf = (run: Run) => Object.fromEntries(run.steps.map((s) => [s.key, { status: s.status, output: s.output }]));

describe("a sign-up automation: welcome, a 2 s delay, a condition on a contact property, one of two emails", () => {
  it("sends the welcome with its variables, then the email of the branch each contact's plan takes", { timeout: 60_000 }, async () => {
    await succeeded(() => resend.contactProperties.create({ key: "plan", type: "string", fallbackValue: "free" }));
    await succeeded(() => resend.events.create({ name: "user.signed_up", schema: { source: "string" } }));
    const welcome = await publishedTemplate("Welcome", "Welcome {{{NAME}}}", "<p>Hi {{{NAME}}}, you came from {{{SOURCE}}}</p>", {
      NAME: "there",
      SOURCE: null,
    });
    const pro = await publishedTemplate("Pro tips", "Pro tips", "<p>Pro tips for {{{NAME}}}</p>", { NAME: null });
    const free = await publishedTemplate("Upgrade", "Go pro", "<p>Upgrade, {{{NAME|friend}}}</p>");
    const automationId = await enabledAutomation("Onboarding", {
      steps: [
        { key: "signed_up", type: "trigger", config: { eventName: "user.signed_up" } },
        {
          key: "welcome",
          type: "send_email",
          config: { template: { id: welcome, variables: { NAME: { var: "contact.first_name" }, SOURCE: { var: "payload.source" } } } },
        },
        { key: "pause", type: "delay", config: { duration: "2 seconds" } },
        { key: "is_pro", type: "condition", config: { type: "rule", field: "contact.plan", operator: "eq", value: "pro" } },
        { key: "pro_tips", type: "send_email", config: { template: { id: pro, variables: { NAME: { var: "contact.first_name" } } } } },
        { key: "upgrade", type: "send_email", config: { template: { id: free } } },
      ],
      connections: [
        { from: "signed_up", to: "welcome" },
        { from: "welcome", to: "pause" },
        { from: "pause", to: "is_pro" },
        { from: "is_pro", to: "pro_tips", type: "condition_met" },
        { from: "is_pro", to: "upgrade", type: "condition_not_met" },
      ],
    });
    await succeeded(() => resend.contacts.create({ email: "ada@example.test", firstName: "Ada", properties: { plan: "pro" } }));
    await succeeded(() => resend.contacts.create({ email: "bob@example.test", firstName: "Bob" }));
    await succeeded(() => resend.events.send({ event: "user.signed_up", email: "ada@example.test", payload: { source: "ads" } }));
    await succeeded(() => resend.events.send({ event: "user.signed_up", email: "bob@example.test", payload: { source: "blog" } }));

    const [adaWelcome, adaPro] = await messagesTo("ada@example.test", 2);
    expect(adaWelcome!.parsed.subject).toBe("Welcome Ada");
    expect(adaWelcome!.parsed.html).toContain("Hi Ada, you came from ads");
    expect(adaPro!.parsed.subject).toBe("Pro tips");
    expect(adaPro!.parsed.html).toContain("Pro tips for Ada");
    const [bobWelcome, bobUpgrade] = await messagesTo("bob@example.test", 2);
    expect(bobWelcome!.parsed.html).toContain("Hi Bob, you came from blog");
    expect(bobUpgrade!.parsed.subject).toBe("Go pro");
    expect(bobUpgrade!.parsed.html).toContain("Upgrade, friend");

    const runs = await runsOf(automationId, 2, "completed");
    const byPath = Object.fromEntries(runs.map((r) => [stepsOf(r).pro_tips!.status === "completed" ? "pro" : "free", r]));
    expect(stepsOf(byPath.pro!)).toEqual({
      signed_up: { status: "completed", output: expect.objectContaining({ event: "user.signed_up" }) },
      welcome: { status: "completed", output: { email_id: expect.any(String) } },
      pause: { status: "completed", output: null },
      is_pro: { status: "completed", output: { result: true } },
      pro_tips: { status: "completed", output: { email_id: expect.any(String) } },
      upgrade: { status: "skipped", output: null },
    });
    expect(stepsOf(byPath.free!)).toMatchObject({
      is_pro: { status: "completed", output: { result: false } },
      pro_tips: { status: "skipped" },
      upgrade: { status: "completed" },
    });
    expect(byPath.pro!).toMatchObject({ object: "automation_run", status: "completed" });
    const pause = byPath.pro!.steps.find((s) => s.key === "pause")!;
    expect(instant(pause.completed_at!) - instant(pause.started_at!)).toBeGreaterThanOrEqual(2_000);
    expect(byPath.pro!.completed_at).not.toBeNull();
    // The email the run reports is the one that arrived.
    const emailId = (stepsOf(byPath.pro!).welcome!.output as { email_id: string }).email_id;
    expect(adaWelcome!.messageId).toContain(emailId);
  });
});

describe("a send step to a suppressed address", () => {
  it("records the email suppressed and sends nothing, as a send through the API would", { timeout: 60_000 }, async () => {
    await succeeded(() => resend.events.create({ name: "invoice.issued" }));
    const receipt = await publishedTemplate("Receipt", "Your order", "<p>Thanks</p>");
    const automationId = await enabledAutomation("Receipts", {
      steps: [
        { key: "issued", type: "trigger", config: { eventName: "invoice.issued" } },
        { key: "receipt", type: "send_email", config: { template: { id: receipt } } },
      ],
      connections: [{ from: "issued", to: "receipt" }],
    });
    await succeeded(() => resend.contacts.create({ email: "bounced@example.test" }));
    await succeeded(() => resend.suppressions.add({ email: "bounced@example.test" }));
    await succeeded(() => resend.events.send({ event: "invoice.issued", email: "bounced@example.test" }));

    const [run] = await runsOf(automationId, 1, "completed");
    const emailId = (stepsOf(run!).receipt!.output as { email_id: string }).email_id;
    for (const deadline = Date.now() + 15_000; ; await sleep(100)) {
      const email = await succeeded(() => resend.emails.get(emailId));
      if (email.last_event === "suppressed") break;
      if (Date.now() > deadline) throw new Error(`the step's email is ${email.last_event}, not suppressed`);
    }
    await sleep(1_000);
    expect(sink.received.filter((m) => m.envelope.to.includes("bounced@example.test"))).toEqual([]);
  });
});

describe("wait_for_event", () => {
  // Long enough that both runs are seen parked, and the awaited event sent, before it runs out on a loaded machine.
  const waitSeconds = 8;
  it("takes event_received when the awaited event comes in time, and timeout when it does not", { timeout: 60_000 }, async () => {
    await succeeded(() => resend.events.create({ name: "trial.started" }));
    await succeeded(() => resend.events.create({ name: "trial.converted", schema: { plan: "string" } }));
    const thanks = await publishedTemplate("Thanks", "Thanks for choosing {{{PLAN}}}", "<p>Thanks</p>", { PLAN: null });
    const nudge = await publishedTemplate("Nudge", "Still thinking?", "<p>Your trial is ending</p>");
    const automationId = await enabledAutomation("Trial", {
      steps: [
        { key: "start", type: "trigger", config: { eventName: "trial.started" } },
        { key: "await", type: "wait_for_event", config: { eventName: "trial.converted", timeout: `${waitSeconds} seconds` } },
        {
          key: "thanks",
          type: "send_email",
          config: { template: { id: thanks, variables: { PLAN: { var: "steps.await.payload.plan" } } } },
        },
        { key: "nudge", type: "send_email", config: { template: { id: nudge } } },
      ],
      connections: [
        { from: "start", to: "await" },
        { from: "await", to: "thanks", type: "event_received" },
        { from: "await", to: "nudge", type: "timeout" },
      ],
    });
    await succeeded(() => resend.events.send({ event: "trial.started", email: "converts@example.test" }));
    await succeeded(() => resend.events.send({ event: "trial.started", email: "lingers@example.test" }));
    await runsOf(automationId, 2, "running");
    // Only once the run is parked on the wait does the awaited event count.
    await parkedAt(automationId, 2, "await");
    const parkedBy = Date.now();
    await succeeded(() => resend.events.send({ event: "trial.converted", email: "converts@example.test", payload: { plan: "pro" } }));

    const [converted] = await messagesTo("converts@example.test", 1);
    expect(converted!.parsed.subject).toBe("Thanks for choosing pro");
    const [lingered] = await messagesTo("lingers@example.test", 1);
    expect(lingered!.parsed.subject).toBe("Still thinking?");
    const runs = await runsOf(automationId, 2, "completed");
    const steps = runs.map(stepsOf);
    const received = steps.find((s) => s.thanks!.status === "completed")!;
    expect(received.await).toEqual({ status: "completed", output: { event_id: expect.any(String), payload: { plan: "pro" } } });
    expect(received.nudge!.status).toBe("skipped");
    const timedOut = steps.find((s) => s.nudge!.status === "completed")!;
    expect(timedOut.await).toEqual({ status: "completed", output: { timed_out: true } });
    expect(timedOut.thanks!.status).toBe("skipped");
    // The converted contact gets nothing more when its timeout would have passed.
    await sleep(Math.max(0, parkedBy + waitSeconds * 1_000 + 500 - Date.now()));
    expect((await messagesTo("converts@example.test", 1)).length).toBe(1);
  });
});

describe("runs and automation changes", () => {
  // Long enough that the test sees each run waiting, and stops the automation, before it runs out on a loaded machine.
  const delaySeconds = 6;
  it("a run keeps the version it started with; stopping cancels the waiting runs", { timeout: 240_000 }, async () => {
    await succeeded(() => resend.events.create({ name: "order.placed" }));
    const v1 = await publishedTemplate("Review v1", "Review (v1)", "<p>v1</p>");
    const v2 = await publishedTemplate("Review v2", "Review (v2)", "<p>v2</p>");
    const graph = (template: string) => ({
      steps: [
        { key: "placed", type: "trigger" as const, config: { eventName: "order.placed" } },
        { key: "later", type: "delay" as const, config: { duration: `${delaySeconds} seconds` } },
        { key: "review", type: "send_email" as const, config: { template: { id: template } } },
      ],
      connections: [
        { from: "placed", to: "later" },
        { from: "later", to: "review" },
      ],
    });
    const id = await enabledAutomation("Reviews", graph(v1));
    await succeeded(() => resend.events.send({ event: "order.placed", email: "first@example.test" }));
    await runsOf(id, 1, "running");
    await succeeded(() => resend.automations.update(id, graph(v2)));
    const [first] = await messagesTo("first@example.test", 1);
    expect(first!.parsed.subject).toBe("Review (v1)");
    // Over, so that the one running run below is the second.
    await runsOf(id, 1, "completed", 60_000);

    await succeeded(() => resend.events.send({ event: "order.placed", email: "second@example.test" }));
    await parkedAt(id, 1, "later");
    const parkedBy = Date.now();
    expect(await succeeded(() => resend.automations.stop(id))).toEqual({ object: "automation", id, status: "disabled" });
    const [cancelled] = await runsOf(id, 1, "cancelled", 60_000);
    expect(stepsOf(cancelled!)).toMatchObject({
      placed: { status: "completed" },
      later: { status: "skipped" },
      review: { status: "skipped" },
    });
    await sleep(Math.max(0, parkedBy + delaySeconds * 1_000 + 500 - Date.now()));
    expect(sink.received.filter((m) => m.envelope.to.includes("second@example.test"))).toEqual([]);
    // A disabled automation starts no run.
    await succeeded(() => resend.events.send({ event: "order.placed", email: "third@example.test" }));
    await sleep(1_000);
    expect((await succeeded(() => resend.automations.runs.list({ automationId: id }))).data).toHaveLength(2);
  });
});
