import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { handleCommand } from "@tidings/commands";
import { formatTimestamp } from "@tidings/core";
import { automationRunDecider, automationRunStream, contactImportDecider, contactImportStream, type Decider } from "@tidings/domain";
import { apiTestFile } from "../testing/apiTestFile.js";
import { dashboardSession } from "../testing/dashboardSessions.js";

const file = apiTestFile("dashboard-audience");
const { call } = file;
const browser = () => dashboardSession(file);
const now = () => formatTimestamp(new Date());
/** The text of a page without its markup, to assert on what a person reads. */
const text = (body: string) =>
  body
    .replace(/<[^>]+>/g, " ")
    .replace(/&(#\d+|quot|amp|lt|gt);/g, (_, name: string) =>
      name.startsWith("#")
        ? String.fromCharCode(Number(name.slice(1)))
        : ({ quot: '"', amp: "&", lt: "<", gt: ">" } as const)[name as "quot"],
    )
    .replace(/\s+/g, " ");

/**
 * What the sagas do (an import's rows, a run's steps) is written here as they write it, through the
 * domain's deciders: these tests are about the pages that show it, which the e2e tests see the sagas feed.
 */
async function sagaWrites<Command, Event extends { type: string; data: unknown }, State>(
  streamId: string,
  decider: Decider<Command, Event, State>,
  commands: Command[],
  teamId: string,
) {
  for (const command of commands) {
    const { store, services } = file.testServices;
    const { position } = await handleCommand({ store, streamId, decider, command, metadata: { actor: "test", teamId } });
    if (position) await services.waitFor(position);
  }
}

/** A multipart form as a browser posts one, the CSRF token first. */
async function uploadForm(cookie: string, fields: Record<string, string>, csv: string) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append("file", new Blob([csv], { type: "text/csv" }), "people.csv");
  const request = new Request("http://x", { method: "POST", body: form });
  return file.app.inject({
    method: "POST",
    url: "/dashboard/audience/imports",
    headers: { cookie, "content-type": request.headers.get("content-type")! },
    payload: Buffer.from(await request.arrayBuffer()),
  });
}

describe("contacts", () => {
  it("are searched by a part of their email, a page at a time, the search kept by the pager", async () => {
    for (let i = 0; i < 26; i++) expect((await call("POST", "/contacts", { email: `paged-${i}@example.test` })).status).toBe(201);
    await call("POST", "/contacts", { email: "someone-else@example.test" });
    const page = await (await browser()).get("/dashboard/audience?q=PAGED-");
    expect(page.statusCode).toBe(200);
    expect(page.body.match(/paged-\d+@example\.test<\/a>/g)).toHaveLength(25);
    expect(page.body).not.toContain("someone-else@example.test");
    const older = /href="(\/dashboard\/audience\?q=PAGED-&amp;after=[^"]+)">Older/.exec(page.body)![1]!.replaceAll("&amp;", "&");
    const next = await (await browser()).get(older);
    expect(next.body.match(/paged-\d+@example\.test<\/a>/g)).toEqual(["paged-0@example.test</a>"]);
    expect((await (await browser()).get("/dashboard/audience?q=nobody-has-this")).body).toContain(
      "No contact's email or name contains “nobody-has-this”.",
    );
  });

  it("show one contact's properties, segments, and subscription to every topic", async () => {
    await call("POST", "/contact-properties", { key: "plan", type: "string" });
    const segment = (await call("POST", "/segments", { name: "Early birds" })).body.id;
    const news = (await call("POST", "/topics", { name: "Newsletter", default_subscription: "opt_in" })).body.id;
    await call("POST", "/topics", { name: "Offers", default_subscription: "opt_out" });
    const { id } = (
      await call("POST", "/contacts", {
        email: "ada@example.test",
        first_name: "Ada",
        last_name: "Lovelace",
        properties: { plan: "pro" },
        segments: [{ id: segment }],
        topics: [{ id: news, subscription: "opt_out" }],
      })
    ).body;
    const search = await (await browser()).get("/dashboard/audience?q=lovelace");
    expect(search.body).toContain(`<a href="/dashboard/audience/contacts/${id}">ada@example.test</a>`);
    const page = text((await (await browser()).get(`/dashboard/audience/contacts/${id}`)).body);
    expect(page).toContain("Ada Lovelace");
    expect(page).toContain("plan string pro");
    expect(page).toContain("Early birds");
    expect(page).toContain("Newsletter opted out");
    expect(page).toContain("Offers opted out");
  });

  it("of another team are not found", async () => {
    const { id } = (await call("POST", "/contacts", { email: "theirs@example.test" }, file.other)).body;
    const page = await (await browser()).get(`/dashboard/audience/contacts/${id}`);
    expect(page.statusCode).toBe(404);
    expect(page.body).toContain("There is no contact with this id in your team.");
    expect(page.body).not.toContain("theirs@example.test");
  });
});

describe("segments", () => {
  it("are created and deleted from their page", async () => {
    const b = await browser();
    expect((await b.post("/dashboard/audience/segments", { name: "Made on the page" })).statusCode).toBe(303);
    const listed = await b.get("/dashboard/audience/segments");
    expect(listed.body).toContain("Segment “Made on the page” created.");
    const id = (await call("GET", "/segments")).body.data.find((s: { name: string }) => s.name === "Made on the page").id;
    expect((await b.post(`/dashboard/audience/segments/${id}/delete`)).statusCode).toBe(303);
    expect((await b.get("/dashboard/audience/segments")).body).toContain("The segment was deleted.");
    expect((await call("GET", `/segments/${id}`)).status).toBe(404);
  });
});

describe("CSV imports", () => {
  it("start from an uploaded file, and the import's page follows it to its end and shows its row errors", async () => {
    const b = await browser();
    const started = await uploadForm(b.cookie, { csrf_token: b.csrf, on_conflict: "skip" }, "email\ngood@example.test\nnot-an-address\n");
    expect(started.statusCode).toBe(303);
    const importId = /\/dashboard\/audience\/imports\/([0-9a-f-]{36})$/.exec(String(started.headers.location))![1]!;
    const queued = await b.get(`/dashboard/audience/imports/${importId}`);
    expect(queued.body).toContain("The import of people.csv has started.");
    expect(queued.body).toMatch(/data-refresh="2"/);

    const { teamId } = file.admin;
    await sagaWrites(
      contactImportStream(importId),
      contactImportDecider,
      [
        { type: "StartContactImport", now: now() },
        {
          type: "RecordContactImportProgress",
          rowsDone: 2,
          counts: { total: 2, created: 1, updated: 0, skipped: 0, failed: 1 },
          errors: [{ line: 3, reason: "invalid email `not-an-address`" }],
        },
        { type: "CompleteContactImport", now: now() },
      ],
      teamId,
    );
    const done = await b.get(`/dashboard/audience/imports/${importId}`);
    expect(done.body).not.toContain("data-refresh");
    const page = text(done.body);
    expect(page).toContain("Import completed");
    expect(page).toContain("Rows done 2 Created 1 Updated 0 Skipped 0 Failed 1");
    expect(page).toContain("3 invalid email `not-an-address`");
    expect((await b.get("/dashboard/audience/imports")).body).toContain(`href="/dashboard/audience/imports/${importId}"`);
  });

  it("refuse an upload without the session's CSRF token, and start nothing", async () => {
    const b = await browser();
    const before = (await call("GET", "/contacts/imports")).body.data.length;
    const refused = await uploadForm(b.cookie, { on_conflict: "skip" }, "email\nsneaky@example.test\n");
    expect(refused.statusCode).toBe(403);
    expect((await call("GET", "/contacts/imports")).body.data.length).toBe(before);
  });

  it("say so when the form has no file", async () => {
    const b = await browser();
    expect((await b.post("/dashboard/audience/imports", { on_conflict: "skip" })).statusCode).toBe(303);
    expect((await b.get("/dashboard/audience/imports")).body).toContain("Choose a CSV file to import.");
  });

  it("of another team are not found", async () => {
    const theirs = await dashboardSession(file, file.other);
    const started = await uploadForm(theirs.cookie, { csrf_token: theirs.csrf }, "email\ntheirs@example.test\n");
    const page = await (await browser()).get(String(started.headers.location));
    expect(page.statusCode).toBe(404);
    expect(page.body).toContain("There is no import with this id in your team.");
  });
});

describe("automations", () => {
  it("list with what starts them, and show an automation's runs and each run's steps", async () => {
    await call("POST", "/events", { name: "user.signed_up" });
    const template = (await call("POST", "/templates", { name: "Hi", subject: "Hi", html: "<p>Hi</p>", from: "Acme <a@acme.test>" })).body
      .id;
    const graph = {
      steps: [
        { key: "start", type: "trigger" as const, config: { event_name: "user.signed_up" } },
        { key: "hello", type: "send_email" as const, config: { template: { id: template } } },
      ],
      connections: [{ from: "start", to: "hello", type: "default" as const }],
    };
    const automation = await call("POST", "/automations", { name: "Welcome", status: "enabled", ...graph });
    expect(automation.status).toBe(201);
    const automationId = automation.body.id;
    const contactId = (await call("POST", "/contacts", { email: "runner@example.test" })).body.id;
    const runId = randomUUID();
    const { teamId } = file.admin;
    const trigger = { receivedEventId: randomUUID(), name: "user.signed_up", contactId, payload: {} };
    await sagaWrites(
      automationRunStream(runId),
      automationRunDecider,
      [
        { type: "StartRun", runId, automationId, teamId, version: 1, graph, trigger, now: now() },
        { type: "CompleteStep", key: "start", outcome: "completed", output: { event: "user.signed_up" }, branch: "default", now: now() },
        { type: "FailStep", key: "hello", error: "The template has no published version.", now: now() },
      ],
      teamId,
    );

    const b = await browser();
    const list = text((await b.get("/dashboard/automations")).body);
    expect(list).toContain("Welcome enabled user.signed_up");
    const detail = await b.get(`/dashboard/automations/${automationId}`);
    expect(detail.body).toContain(`href="/dashboard/automations/${automationId}/runs/${runId}"`);
    expect(text(detail.body)).toContain("failed");
    const run = text((await b.get(`/dashboard/automations/${automationId}/runs/${runId}`)).body);
    expect(run).toContain("Run failed");
    expect(run).toMatch(/start trigger completed .* event user.signed_up/);
    expect(run).toContain("The template has no published version.");
  });

  it("that the team does not have are not found, nor their runs", async () => {
    const b = await browser();
    const missing = await b.get(`/dashboard/automations/${randomUUID()}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toContain("There is no automation with this id in your team.");
    expect((await b.get(`/dashboard/automations/${randomUUID()}/runs/${randomUUID()}`)).statusCode).toBe(404);
  });
});
