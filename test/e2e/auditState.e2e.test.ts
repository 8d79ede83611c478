import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Resend } from "resend";
import { testMode } from "@tidings/postgres";
import { startTestServer, type TestServer } from "../support/testServer.js";
import { paced } from "../support/wire.js";

const cli = join(import.meta.dirname, "../../services/cli/dist/main.js");
const run = promisify(execFile);
/** Each `tidings` run opens the stores afresh: embedded PGlite takes some 20 s of a loaded machine. */
const perRun = 90_000;

let server: TestServer;
let templateId = "";
const contactAddress = `Audited.Person-${Date.now()}@example.com`;
let contactId = "";
/** What GET /templates/:id answered after each step, and a time just after it. */
const steps: { at: string; shown: unknown }[] = [];

const tidings = (...args: string[]) =>
  run(process.execPath, [cli, ...args], { env: { PATH: process.env.PATH, ...server.env, LOG_LEVEL: "warn" }, timeout: 120_000 });
const json = async (...args: string[]) => JSON.parse((await tidings(...args, "--json")).stdout) as unknown;

beforeAll(async () => {
  server = await startTestServer();
  const resend = new Resend(server.token, { baseUrl: server.url });
  const step = async () => {
    const shown = await paced(() => resend.templates.get(templateId));
    if (shown.error) throw new Error(shown.error.message);
    steps.push({ at: new Date().toISOString(), shown: shown.data });
  };
  const created = await paced(() => resend.templates.create({ name: "Welcome", html: "<p>Hi {{{NAME|there}}}</p>", subject: "Hello" }));
  templateId = created.data!.id;
  await step();
  const updated = await paced(() =>
    resend.templates.update(templateId, { subject: "Welcome aboard", html: "<p>Welcome {{{NAME|there}}}</p>" }),
  );
  if (updated.error) throw new Error(updated.error.message);
  await step();
  const published = await paced(() => resend.templates.publish(templateId));
  if (published.error) throw new Error(published.error.message);
  await step();
  const contact = await paced(() => resend.contacts.create({ email: contactAddress, firstName: "Ada" }));
  contactId = contact.data!.id;
  // An embedded data directory has one owner at a time: the server steps aside for the CLI.
  if (testMode() === "embedded") await server.serving.stop();
});
afterAll(async () => {
  await server?.stop();
});

describe("tidings audit state", () => {
  it(
    "prints a template at each time as GET /templates/:id showed it then",
    async () => {
      expect(steps.map((s) => (s.shown as { status: string }).status)).toEqual(["draft", "draft", "published"]);
      for (const { at, shown } of steps) expect(await json("audit", "state", templateId, "--at", at)).toEqual(shown);
    },
    3 * perRun,
  );

  it(
    "takes a revision or a stream id as well",
    async () => {
      expect(await json("audit", "state", `template-${templateId}`, "--at", "0")).toEqual(steps[0]!.shown);
      expect(await json("audit", "state", templateId, "--at", "2")).toEqual(steps[2]!.shown);
    },
    2 * perRun,
  );

  it(
    "says the template did not exist before it was created",
    async () => {
      const failed = await tidings("audit", "state", templateId, "--at", "2000-01-01T00:00:00Z").catch(
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed).toMatchObject({ code: 1, stderr: expect.stringContaining("did not exist") });
    },
    perRun,
  );

  it(
    "--diff shows the fields that changed and the events, with actors, that changed them",
    async () => {
      const diff = (await json("audit", "state", templateId, "--diff", steps[0]!.at, steps[2]!.at)) as {
        changes: { field: string; before: unknown; after: unknown }[];
        events: { type: string; actor: string | null }[];
      };
      const fields = Object.fromEntries(diff.changes.map((c) => [c.field, [c.before, c.after]]));
      expect(fields.subject).toEqual(["Hello", "Welcome aboard"]);
      expect(fields.status).toEqual(["draft", "published"]);
      expect(fields.name).toBeUndefined();
      expect(diff.events.map((e) => e.type)).toEqual(["TemplateUpdated", "TemplatePublished"]);
      for (const e of diff.events) expect(e.actor).toMatch(/^api:/);
    },
    perRun,
  );
});

describe("tidings audit find", () => {
  it(
    "lists the stream and events that name an id",
    async () => {
      const { stdout } = await tidings("audit", "find", templateId);
      expect(stdout).toContain(`template-${templateId}`);
      expect(stdout).toContain("TemplatePublished");
    },
    perRun,
  );

  it(
    "finds a contact by its address, in any case",
    async () => {
      const { stdout } = await tidings("audit", "find", contactAddress.toUpperCase(), "--json");
      const rows = stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { stream: string; kind: string });
      expect(rows).toEqual([expect.objectContaining({ stream: `contact-${contactId}`, kind: "email" })]);
    },
    perRun,
  );

  it(
    "exits 1 when nothing names the key",
    async () => {
      const failed = await tidings("audit", "find", "nobody@example.com").catch((error: { code: number; stderr: string }) => error);
      expect(failed).toMatchObject({ code: 1, stderr: expect.stringContaining("no event names") });
    },
    perRun,
  );
});
