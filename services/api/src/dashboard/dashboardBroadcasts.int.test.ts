import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { broadcastEmailId } from "@tidings/core";
import { broadcastStream, emailStream } from "@tidings/domain";
import { apiTestFile } from "../testing/apiTestFile.js";
import { dashboardSession } from "../testing/dashboardSessions.js";

const file = apiTestFile("dashboard-broadcasts");
const { call } = file;
const session = () => dashboardSession(file);
let segmentId: string;

beforeAll(async () => {
  segmentId = (await call("POST", "/segments", { name: "Readers" })).body.id;
  await call("POST", "/contacts", { email: "ann@example.test", first_name: "Ann", segments: [{ id: segmentId }] });
  await call("POST", "/contacts", { email: "zed@example.test", first_name: "Zed" });
});

const draft = async (fields: Record<string, unknown> = {}) => {
  const res = await call("POST", "/broadcasts", {
    segment_id: segmentId,
    from: "Acme <news@acme.test>",
    subject: "Hello {{{FIRST_NAME|there}}}",
    html: "<p>Hi {{{FIRST_NAME|there}}} <script>alert(1)</script></p>",
    name: "November news",
    ...fields,
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const editorFields = (fields: Record<string, string> = {}) => ({
  name: "Made in the dashboard",
  from: "Acme <news@acme.test>",
  subject: "Dashboard news",
  reply_to: "help@acme.test, desk@acme.test",
  segment_id: segmentId,
  topic_id: "",
  preview_text: "",
  html: "<p>Hi {{{contact.first_name|friend}}}</p>",
  text: "",
  ...fields,
});

describe("the Broadcasts list", () => {
  it("shows each broadcast with its status, newest first, a page of 25 at a time", async () => {
    for (let i = 0; i < 26; i++) await draft({ name: `Paged ${i}` });
    const browser = await session();
    const first = await browser.get("/dashboard/broadcasts");
    expect(first.statusCode).toBe(200);
    expect(first.body).toMatch(/<a href="\/dashboard\/broadcasts"\s+aria-current="page">Broadcasts<\/a>/);
    expect(first.body).toContain("Paged 25");
    expect(first.body).toContain('<span class="badge">draft</span>');
    const older = /href="(\/dashboard\/broadcasts\?after=[^"]+)">Older/.exec(first.body)![1]!;
    const second = await browser.get(older);
    expect(second.body).toContain("Paged 0");
    expect(second.body).not.toContain("Paged 25");
    expect(second.body).toContain("← Newer");
  });

  it("has the CSP without inline scripts", async () => {
    const page = await (await session()).get("/dashboard/broadcasts");
    expect(String(page.headers["content-security-policy"])).toContain("script-src 'self'");
    expect(page.body).not.toMatch(/<script>|<script [^>]*>[^<]|\son[a-z]+=|\sstyle=/);
  });
});

describe("the draft editor", () => {
  it("creates a draft from the form, through POST /broadcasts, and opens it for editing", async () => {
    const browser = await session();
    const form = await browser.get("/dashboard/broadcasts/new");
    expect(form.body).toMatch(new RegExp(`<option value="${segmentId}"\\s*>Readers</option>`));
    const res = await browser.post("/dashboard/broadcasts", editorFields());
    expect(res.statusCode).toBe(303);
    const id = /\/dashboard\/broadcasts\/([0-9a-f-]{36})\/edit/.exec(String(res.headers.location))![1]!;
    expect((await call("GET", `/broadcasts/${id}`)).body).toMatchObject({
      name: "Made in the dashboard",
      subject: "Dashboard news",
      reply_to: ["help@acme.test", "desk@acme.test"],
      segment_id: segmentId,
      topic_id: null,
      text: null,
      status: "draft",
    });
    const edit = await browser.get(String(res.headers.location));
    expect(edit.body).toContain("The draft is saved.");
    expect(edit.body).toMatch(new RegExp(`<option value="${segmentId}"\\s+selected>Readers</option>`));
  });

  it("offers every segment of the team, past the API's page of 100", async () => {
    const team = await file.testServices.aKey("dashboard-many-segments");
    const created: string[] = [];
    for (let i = 0; i < 101; i++) created.push((await call("POST", "/segments", { name: `Segment ${i}` }, team)).body.id);
    const form = await (await dashboardSession(file, team)).get("/dashboard/broadcasts/new");
    const offered = [...form.body.matchAll(/<option value="([0-9a-f-]{36})"/g)].map((m) => m[1]);
    expect(offered).toHaveLength(101);
    expect(new Set(offered)).toEqual(new Set(created));
  });

  it("saves changes to a draft through PATCH", async () => {
    const id = await draft();
    const browser = await session();
    expect((await browser.post(`/dashboard/broadcasts/${id}`, editorFields({ subject: "Changed here" }))).statusCode).toBe(303);
    expect((await call("GET", `/broadcasts/${id}`)).body.subject).toBe("Changed here");
  });

  it("shows the API's refusal in words and keeps what was typed", async () => {
    const browser = await session();
    const res = await browser.post("/dashboard/broadcasts", editorFields({ from: "not an address", subject: "Kept <as typed>" }));
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain("The draft was not saved.");
    expect(res.body).toContain('value="Kept &lt;as typed&gt;"');
  });

  it("sends a sent broadcast's editor back to its page, as only a draft can change", async () => {
    const id = await draft();
    const browser = await session();
    await call("POST", `/broadcasts/${id}/send`, { scheduled_at: "in 1 hour" });
    const res = await browser.get(`/dashboard/broadcasts/${id}/edit`);
    expect(res.statusCode).toBe(303);
    expect((await browser.get(String(res.headers.location))).body).toContain("This broadcast is scheduled: only a draft can be changed.");
  });
});

describe("the personalised preview", () => {
  it("renders the draft for a contact of its segment, in a sandboxed frame served with a sandboxing CSP", async () => {
    const id = await draft();
    const browser = await session();
    const page = await browser.get(`/dashboard/broadcasts/${id}/edit?contact=ann%40example.test`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("<strong>Subject:</strong> Hello Ann");
    expect(page.body).toContain('<option value="ann@example.test"></option>');
    const frameTag = /<iframe([^>]*)>/.exec(page.body)![1]!;
    expect(frameTag).toMatch(/\ssandbox=""/);
    expect(frameTag).toContain(`src="/dashboard/broadcasts/${id}/preview?contact=ann%40example.test"`);
    const frame = await browser.get(`/dashboard/broadcasts/${id}/preview?contact=ann%40example.test`);
    expect(frame.statusCode).toBe(200);
    expect(frame.headers["content-security-policy"]).toMatch(/^sandbox; default-src 'none'/);
    expect(frame.body).toContain("<p>Hi Ann <script>");
  });

  it("previews no one outside the segment, and says why", async () => {
    const id = await draft();
    const browser = await session();
    const page = await browser.get(`/dashboard/broadcasts/${id}?contact=zed%40example.test`);
    expect(page.body).toContain("zed@example.test is not a contact of this broadcast&#39;s segment.");
    expect(page.body).not.toContain("<iframe");
    expect((await browser.get(`/dashboard/broadcasts/${id}/preview?contact=nobody%40example.test`)).statusCode).toBe(404);
  });
});

describe("the personalised preview of a contact in many segments", () => {
  it("finds the broadcast's segment among more than a page of 100 of the contact's", async () => {
    const team = await file.testServices.aKey("dashboard-many-memberships");
    const as = (method: "GET" | "POST", path: string, body?: unknown) => call(method, path, body, team);
    const first = (await as("POST", "/segments", { name: "The first" })).body.id as string;
    const contact = (await as("POST", "/contacts", { email: "many@example.test", first_name: "Mo", segments: [{ id: first }] })).body.id;
    for (let i = 0; i < 100; i++) {
      const segment = (await as("POST", "/segments", { name: `Later ${i}` })).body.id as string;
      expect((await as("POST", `/contacts/${contact}/segments/${segment}`)).status).toBeLessThan(300);
    }
    const broadcast = (
      await as("POST", "/broadcasts", {
        segment_id: first,
        from: "Acme <news@acme.test>",
        subject: "Hi {{{FIRST_NAME}}}",
        html: "<p>Hi</p>",
      })
    ).body.id;
    const page = await (await dashboardSession(file, team)).get(`/dashboard/broadcasts/${broadcast}?contact=many%40example.test`);
    expect(page.body).toContain("<strong>Subject:</strong> Hi Mo");
  });
});

describe("sending", () => {
  it("schedules a draft at a UTC time, then cancels it back to a draft", async () => {
    const id = await draft();
    const browser = await session();
    const at = new Date(Date.now() + 86_400_000).toISOString().slice(0, 16);
    expect((await browser.post(`/dashboard/broadcasts/${id}/schedule`, { scheduled_at: at })).statusCode).toBe(303);
    const scheduled = (await call("GET", `/broadcasts/${id}`)).body;
    expect(scheduled.status).toBe("scheduled");
    expect(scheduled.scheduled_at.slice(0, 16)).toBe(at.replace("T", " "));
    const page = await browser.get(`/dashboard/broadcasts/${id}`);
    expect(page.body).toContain("The broadcast is scheduled.");
    expect(page.body).toMatch(/data-confirm="Cancel sending “November news”\? It goes back to being a draft\."/);
    expect((await browser.post(`/dashboard/broadcasts/${id}/cancel`)).statusCode).toBe(303);
    expect((await call("GET", `/broadcasts/${id}`)).body.status).toBe("draft");
  });

  it("sends a draft now, and deletes another", async () => {
    const [sent, deleted] = [await draft(), await draft()];
    const browser = await session();
    await browser.post(`/dashboard/broadcasts/${sent}/send`);
    expect((await call("GET", `/broadcasts/${sent}`)).body.status).not.toBe("draft");
    const page = await browser.get(`/dashboard/broadcasts/${sent}`);
    expect(page.body).toContain("The broadcast is sending.");
    expect(page.body).toContain('<h2 id="counts-heading">Counts</h2>');
    expect((await browser.post(`/dashboard/broadcasts/${deleted}/delete`)).headers.location).toBe("/dashboard/broadcasts");
    expect((await call("GET", `/broadcasts/${deleted}`)).status).toBe(404);
  });
});

describe("a broadcast's clicked links", () => {
  it("lists each tracked link with its clicks and people, leaving out a scanner's", async () => {
    const id = await draft({ name: "Clicked news" });
    expect((await call("POST", `/broadcasts/${id}/send`, {})).status).toBe(200);
    const contactId = randomUUID();
    const emailId = broadcastEmailId(id, contactId);
    const metadata = { teamId: file.admin.teamId, actor: "test" };
    const seen = (machine: boolean) => ({
      ipAddress: machine ? "40.94.0.1" : "203.0.113.7",
      userAgent: "Mozilla/5.0",
      machine,
      machineReason: machine ? "microsoft_safe_links" : null,
    });
    const click = (link: string, linkIndex: number, machine = false) => ({
      id: randomUUID(),
      type: "EmailClicked",
      data: { emailId, link, linkIndex, clickedAt: "2026-11-23 10:00:00.000000+00", ...seen(machine) },
      metadata,
    });
    // What the broadcast saga plans and the click route records, as they append it: the int app runs neither.
    const { store, projections } = file.testServices;
    const recipients = [{ contactId, email: "ann@example.test" }];
    const planned = { broadcastId: id, teamId: file.admin.teamId, batch: 0, recipients };
    await store.append(broadcastStream(id), [{ id: randomUUID(), type: "BroadcastBatchPlanned", data: planned, metadata }], "any");
    const clicks = [
      click("https://acme.test/pricing", 0),
      click("https://acme.test/pricing", 0),
      click("https://acme.test/scanned", 1, true),
    ];
    const { position } = await store.append(emailStream(emailId), clicks, "any");
    expect(await projections.waitFor(position, 60_000)).toBe(true);
    const page = await (await session()).get(`/dashboard/broadcasts/${id}`);
    expect(page.statusCode).toBe(200);
    const links = page.body.slice(page.body.indexOf('id="links-heading"'));
    const row =
      /<tr>\s*<td data-label="Link"><span><span class="mono">([^<]+)<\/span><\/span><\/td>\s*<td data-label="Clicks"><span>(\d+)<\/span><\/td>\s*<td data-label="People"><span>(\d+)<\/span><\/td>/g;
    expect([...links.matchAll(row)].map((m) => m.slice(1))).toEqual([["https://acme.test/pricing", "2", "1"]]);
    expect(links).not.toContain("No link was clicked yet.");
  });
});

describe("team scoping", () => {
  it("shows another team's broadcast as not found, and changes nothing of it", async () => {
    const theirs = (
      await call(
        "POST",
        "/broadcasts",
        { segment_id: (await call("POST", "/segments", { name: "Theirs" }, file.other)).body.id, from: "a@b.test", subject: "Theirs" },
        file.other,
      )
    ).body.id as string;
    const browser = await session();
    for (const path of ["", "/edit", "/preview?contact=ann%40example.test"]) {
      const res = await browser.get(`/dashboard/broadcasts/${theirs}${path}`);
      expect([path, res.statusCode]).toEqual([path, 404]);
    }
    expect((await browser.get(`/dashboard/broadcasts/${theirs}`)).body).toContain("There is no broadcast with this id in your team.");
    await browser.post(`/dashboard/broadcasts/${theirs}/send`);
    expect((await browser.post(`/dashboard/broadcasts/${theirs}`, editorFields())).statusCode).toBe(404);
    expect((await call("GET", `/broadcasts/${theirs}`, undefined, file.other)).body).toMatchObject({ status: "draft", subject: "Theirs" });
  });
});
