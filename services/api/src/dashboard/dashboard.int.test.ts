import { describe, expect, it } from "vitest";
import { handleCommand } from "@tidings/commands";
import { formatTimestamp } from "@tidings/core";
import { emailDecider, emailStream, type EmailCommand } from "@tidings/domain";
import type { ApiInstance } from "../app.js";
import { apiTestFile } from "../testing/apiTestFile.js";
import { capturingLogger } from "../testing/capturingLogger.js";
import { emailSender } from "../testing/emailRequests.js";
import { dashboardSession, dashboardSignIn, form, formHeaders } from "../testing/dashboardSessions.js";
import type { TestKey } from "../testing/testServices.js";

const file = apiTestFile("dashboard");
const send = emailSender(file);
const signIn = (key: TestKey, app: ApiInstance = file.app, headers: Record<string, string> = {}) => dashboardSignIn(app, key, headers);
const session = (key?: TestKey) => dashboardSession(file, key);

describe("the dashboard's headers", () => {
  it("have a CSP without inline scripts, that no other site may frame", async () => {
    for (const res of [await file.app.inject({ url: "/dashboard/sign-in" }), await (await session()).get("/dashboard/emails")]) {
      expect(res.statusCode).toBe(200);
      const csp = String(res.headers["content-security-policy"]);
      const scripts = /script-src ([^;]+)/.exec(csp)![1]!;
      expect(scripts).toBe("'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).not.toContain("unsafe-eval");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers["x-frame-options"]).toBe("DENY");
      expect(res.headers["cache-control"]).toBe("no-store");
      expect(res.body).not.toMatch(/<script>|<script [^>]*>[^<]|\son[a-z]+=/);
    }
  });

  it("are left out of the OpenAPI document", async () => {
    const document = (await file.app.inject({ url: "/openapi.json" })).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(document.paths).filter((path) => path.startsWith("/dashboard"))).toEqual([]);
  });
});

describe("signing in", () => {
  it("turns a full-access key into a session cookie: HttpOnly, SameSite=Strict, not Secure over http", async () => {
    const res = await signIn(file.admin);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe("/dashboard");
    expect(res.headers["set-cookie"]).toMatch(/^tidings_dashboard=[A-Za-z0-9_-]{43}; Path=\/dashboard; HttpOnly; SameSite=Strict$/);
    expect(String(res.headers["set-cookie"])).not.toContain(file.admin.token);
  });

  it("makes the cookie Secure when a trusted proxy says the request came over https", async () => {
    const behindProxy = await file.testServices.app({ trustProxy: true });
    const res = await signIn(file.admin, behindProxy, { "x-forwarded-proto": "https", "x-forwarded-host": "mail.example.com" });
    expect(res.statusCode).toBe(303);
    expect(res.headers["set-cookie"]).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
  });

  it("takes a form whose Origin is PUBLIC_URL's, behind a proxy that rewrote Host, and refuses another site's", async () => {
    const publicOrigin = new URL(file.testServices.services.config.PUBLIC_URL).origin;
    const proxied = await signIn(file.admin, file.app, { host: "127.0.0.1:3000", origin: publicOrigin });
    expect(proxied.statusCode).toBe(303);
    const crossSite = await signIn(file.admin, file.app, { origin: "https://evil.example" });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.headers["set-cookie"]).toBeUndefined();
  });

  it("refuses a sending-access key with a sentence saying why, and makes no session", async () => {
    const sender = await file.testServices.aKey("dashboard-team", { permission: "sending_access" });
    const res = await signIn(sender);
    expect(res.statusCode).toBe(403);
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect(res.body).toContain("This key has sending access only: it may send emails but not read them");
  });

  it("refuses a key that does not exist, and logs the refusal without the key", async () => {
    const { logger, lines } = capturingLogger("warn");
    const logged = await file.testServices.app({ logger });
    const forged = { ...file.admin, token: `re_${"x".repeat(40)}` };
    const res = await signIn(forged, logged);
    expect(res.statusCode).toBe(401);
    expect(res.body).toContain("This API key is not valid");
    expect(res.body).not.toContain(forged.token);
    expect(lines()).toContainEqual(expect.objectContaining({ msg: "dashboard sign-in refused", reason: "invalid_api_key" }));
    expect(JSON.stringify(lines())).not.toContain(forged.token);
  });

  it("sends a person without a session to the sign-in page, from every page and form but signing in", async () => {
    const open = new Set(["GET /dashboard/sign-in", "POST /dashboard/sign-in", "POST /dashboard/sign-out"]);
    const routes = file.app.routeCatalog.filter(
      (r) =>
        r.url.startsWith("/dashboard") &&
        !r.url.startsWith("/dashboard/assets/") &&
        r.method !== "HEAD" &&
        !open.has(`${r.method} ${r.url}`),
    );
    expect(routes.length).toBeGreaterThan(10);
    for (const route of routes) {
      const url = route.url.replace(/:\w+/g, "00000000-0000-4000-8000-000000000000");
      const res = await file.app.inject({ method: route.method as "GET", url, headers: formHeaders, payload: "" });
      expect([`${route.method} ${route.url}`, res.statusCode, res.headers.location]).toEqual([
        `${route.method} ${route.url}`,
        303,
        "/dashboard/sign-in",
      ]);
    }
  });
});

describe("forms", () => {
  it("refuse a POST from another site, and one without the session's CSRF token, changing nothing", async () => {
    const { cookie, csrf } = await session();
    const before = (await file.call("GET", "/api-keys")).body.data.length;
    const crossSite = await file.app.inject({
      method: "POST",
      url: "/dashboard/api-keys",
      headers: { ...formHeaders, cookie, origin: "https://evil.example" },
      payload: form({ csrf_token: csrf, name: "from elsewhere" }),
    });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.body).toContain("This form was refused");
    const noToken = await file.app.inject({
      method: "POST",
      url: "/dashboard/api-keys",
      headers: { ...formHeaders, cookie },
      payload: form({ name: "without a token" }),
    });
    expect(noToken.statusCode).toBe(403);
    expect((await file.call("GET", "/api-keys")).body.data.length).toBe(before);
  });

  it("create an API key with the session's token, and show its token once", async () => {
    const { cookie, csrf, get } = await session();
    const created = await file.app.inject({
      method: "POST",
      url: "/dashboard/api-keys",
      headers: { ...formHeaders, cookie, origin: "http://localhost:80" },
      payload: form({ csrf_token: csrf, name: "made in the dashboard", permission: "full_access" }),
    });
    expect(created.statusCode).toBe(303);
    const first = await get("/dashboard/api-keys");
    const token = /<code id="new-token">(re_[^<]+)<\/code>/.exec(first.body)?.[1];
    expect(token).toBeDefined();
    expect(first.body).toContain("made in the dashboard");
    expect((await get("/dashboard/api-keys")).body).not.toContain(token!);
  });
});

describe("the API keys page", () => {
  it("lists the team's keys 25 at a time, newest first, with pages", async () => {
    const team = await file.testServices.aKey("dashboard-many-keys", { name: "The oldest key" });
    for (let i = 0; i < 25; i++) expect((await file.call("POST", "/api-keys", { name: `Paged key ${i}` }, team)).status).toBe(201);
    const browser = await session(team);
    const first = await browser.get("/dashboard/api-keys");
    expect(first.body).toContain("Paged key 24");
    expect(first.body).not.toContain("The oldest key");
    expect(first.body).not.toContain("← Newer");
    const older = /href="(\/dashboard\/api-keys\?after=[^"]+)">Older/.exec(first.body)![1]!;
    const second = await browser.get(older);
    expect(second.body).toContain("The oldest key");
    expect(second.body).not.toContain("Paged key 0");
    expect(second.body).toContain("← Newer");
  });

  it("deletes a key, which the API then no longer lists", async () => {
    const browser = await session();
    const made = (await file.call("POST", "/api-keys", { name: "Deleted in the dashboard" })).body as { id: string; token: string };
    const deleted = await browser.post(`/dashboard/api-keys/${made.id}/delete`);
    expect(deleted).toMatchObject({ statusCode: 303, headers: { location: "/dashboard/api-keys" } });
    const page = await browser.get("/dashboard/api-keys");
    expect(page.body).toContain("The key was deleted.");
    expect(page.body).not.toContain("Deleted in the dashboard");
    const keys = (await file.call("GET", "/api-keys")).body.data as { id: string }[];
    expect(keys.map((k) => k.id)).not.toContain(made.id);
  });
});

describe("team scoping", () => {
  it("shows another team's email as not found", async () => {
    const { body } = await send({}, file.other);
    const res = await (await session()).get(`/dashboard/emails/${body.id}`);
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain("There is no email with this id in your team.");
  });

  it("shows the team's own email, its body in a sandboxed frame served with a sandboxing CSP", async () => {
    const { body } = await send({ subject: "Dashboard detail <check>" });
    const browser = await session();
    const page = await browser.get(`/dashboard/emails/${body.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("Dashboard detail &lt;check&gt;");
    const frameTag = /<iframe([^>]*)>/.exec(page.body)![1]!;
    expect(frameTag).toMatch(/\ssandbox=""/);
    expect(frameTag).toContain(`src="/dashboard/emails/${body.id}/content"`);
    const frame = await browser.get(`/dashboard/emails/${body.id}/content`);
    expect(frame.statusCode).toBe(200);
    expect(frame.headers["content-security-policy"]).toMatch(/^sandbox; default-src 'none'/);
    expect(frame.body).toContain("<strong>Ann</strong>");
  });
});

describe("the lists' filters", () => {
  it("narrow the Emails page by recipient or subject and by status, keep them in the pages' links, and say when nothing matches", async () => {
    const browser = await session();
    for (const subject of ["Filtered one", "Filtered two", "Filtered three"]) await send({ subject, to: "filter.me@example.test" });
    const page = await browser.get("/dashboard/emails?search=FILTER.ME&status=queued");
    expect(page.statusCode).toBe(200);
    expect([...page.body.matchAll(/>(Filtered \w+)<\/a>/g)].map((m) => m[1])).toEqual(["Filtered three", "Filtered two", "Filtered one"]);
    expect(page.body).toContain('<option value="queued" selected>');
    expect(page.body).toContain('value="FILTER.ME"');
    const none = await browser.get("/dashboard/emails?search=nobody-at-all&status=bounced");
    expect(none.body).toContain("No email matches these filters.");
  });

  it("show the API's refusal of a filter in words", async () => {
    const page = await (await session()).get("/dashboard/emails?from=yesterday");
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("The emails could not be loaded.");
    expect(page.body).toContain("`created_after` must be an ISO 8601 date or datetime.");
  });

  it("narrow the Logs page by method, path and status class", async () => {
    const browser = await session();
    await file.call("GET", "/emails/00000000-0000-4000-8000-000000000000");
    const page = await browser.get("/dashboard/logs?method=GET&path=%2Femails%2F&status=4");
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<span class="mono">/emails/00000000-0000-4000-8000-000000000000</span>');
    const paths = [...page.body.matchAll(/<td data-label="Path"><span><span class="mono">([^<]+)<\/span>/g)].map((m) => m[1]!);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.every((path) => path.startsWith("/emails/"))).toBe(true);
    const statuses = [...page.body.matchAll(/<span class="badge[^"]*">(\d+)<\/span>/g)].map((m) => m[1]!);
    expect(statuses.length).toBe(paths.length);
    expect(statuses.every((status) => status.startsWith("4"))).toBe(true);
  });
});

describe("the Overview", () => {
  it("charts the six metrics a day over the chosen range, from GET /emails/metrics", async () => {
    const page = await (await session()).get("/dashboard?range=30");
    expect(page.statusCode).toBe(200);
    const charts = [...page.body.matchAll(/<figure class="chart chart-(\w+)">/g)].map((m) => m[1]);
    expect(charts).toEqual(["sent", "delivered", "bounced", "complained", "opened", "clicked"]);
    expect(page.body).toMatch(/aria-label="Sent: \d+ over 30 days, at most \d+ a day"/);
    expect(page.body).toContain('<option value="30" selected>');
  });

  it("says in words when the range has no emails, and not once one is sent", async () => {
    const team = await file.testServices.aKey("dashboard-overview-quiet");
    const browser = await session(team);
    const words = "No emails in the last 7 days: the charts fill in as emails are sent.";
    const quiet = (await browser.get("/dashboard")).body;
    expect(quiet).toContain(words);
    expect(quiet).toContain('No domains yet. <a href="/dashboard/domains/new">Add one</a> to send from it.');
    const { body } = await send({}, team);
    // What the delivery worker records once the relay takes the email, through the email's decider.
    const command: EmailCommand = { type: "RecordEmailSent", now: formatTimestamp(new Date()) };
    const metadata = { actor: "test", teamId: team.teamId };
    const { position } = await handleCommand({
      store: file.testServices.store,
      streamId: emailStream(body.id),
      decider: emailDecider,
      command,
      metadata,
    });
    expect(await file.testServices.projections.waitFor(position!, 60_000)).toBe(true);
    const page = await browser.get("/dashboard");
    expect(page.body).toMatch(/aria-label="Sent: 1 over 7 days/);
    expect(page.body).not.toContain(words);
  });

  it("refuses a range it does not offer", async () => {
    const page = await (await session()).get("/dashboard?range=3650");
    expect(page.statusCode).toBeGreaterThanOrEqual(400);
    expect(page.statusCode).toBeLessThan(500);
  });
});

describe("an email's actions", () => {
  it("share it: the link shows on its page once, and opens the email", async () => {
    const { body } = await send({ subject: "Shared from the dashboard" });
    const browser = await session();
    expect((await browser.post(`/dashboard/emails/${body.id}/share`, { expires_in: "1 hour" })).statusCode).toBe(303);
    const page = await browser.get(`/dashboard/emails/${body.id}`);
    const link = /<code id="share-link">([^<]+)<\/code>/.exec(page.body)![1]!.replaceAll("&amp;", "&");
    const shared = await file.app.inject({ url: link.slice(link.indexOf("/shared")) });
    expect(shared.statusCode).toBe(200);
    expect(shared.body).toContain("Shared from the dashboard");
  });

  it("cancel a scheduled email", async () => {
    const { body } = await send({ scheduled_at: new Date(Date.now() + 86_400_000).toISOString() });
    const browser = await session();
    expect((await browser.get(`/dashboard/emails/${body.id}`)).body).toContain("Cancel sending");
    expect((await browser.post(`/dashboard/emails/${body.id}/cancel`)).statusCode).toBe(303);
    expect((await browser.get(`/dashboard/emails/${body.id}`)).body).toContain("The email is canceled");
    expect((await file.call("GET", `/emails/${body.id}`)).body.last_event).toBe("canceled");
  });

  it("reschedule a scheduled email to a UTC time, which its page then shows", async () => {
    const { body } = await send({ scheduled_at: new Date(Date.now() + 86_400_000).toISOString() });
    const browser = await session();
    const local = new Date(Math.ceil((Date.now() + 2 * 86_400_000) / 60_000) * 60_000).toISOString().slice(0, 16);
    const shown = `<time datetime="${local}:00Z">${local.replace("T", " ")}:00 UTC</time>`;
    expect((await browser.get(`/dashboard/emails/${body.id}`)).body).not.toContain(shown);
    const res = await browser.post(`/dashboard/emails/${body.id}/reschedule`, { scheduled_at: local });
    expect(res).toMatchObject({ statusCode: 303, headers: { location: `/dashboard/emails/${body.id}` } });
    const page = await browser.get(`/dashboard/emails/${body.id}`);
    expect(page.body).toContain("The email is rescheduled.");
    expect(page.body).toMatch(new RegExp(`<dt>Scheduled for</dt>\\s*<dd>${shown}</dd>`));
    expect(timelineItems(page.body)).toEqual(["Scheduled", "Rescheduled"]);
    expect((await file.call("GET", `/emails/${body.id}`)).body.scheduled_at).toMatch(
      new RegExp(`^${local.replace("T", " ")}:00(\\.0+)?\\+00$`),
    );
  });
});

/** The timeline's items as a person reads them: each event's label, or the gap's words. */
const timelineItems = (page: string) =>
  [.../<ol class="timeline">([\s\S]*?)<\/ol>/.exec(page)![1]!.matchAll(/<li[^>]*>(?:<strong>([^<]+)<\/strong>|([^<]+)<\/li>)/g)].map(
    (m) => m[1] ?? m[2],
  );

describe("the Suppressions page", () => {
  it("adds an address to the list, and removes it", async () => {
    const browser = await session();
    const email = "suppressed.here@example.test";
    const added = await browser.post("/dashboard/suppressions", { email });
    expect(added).toMatchObject({ statusCode: 303, headers: { location: "/dashboard/suppressions" } });
    const listed = (await file.call("GET", "/suppressions?limit=100")).body.data as { id: string; email: string; origin: string }[];
    const suppression = listed.find((s) => s.email === email)!;
    expect(suppression).toMatchObject({ origin: "manual" });
    const page = await browser.get("/dashboard/suppressions");
    expect(page.body).toContain(`${email} is suppressed.`);
    expect(page.body).toContain(`action="/dashboard/suppressions/${suppression.id}/delete"`);
    const removed = await browser.post(`/dashboard/suppressions/${suppression.id}/delete`);
    expect(removed).toMatchObject({ statusCode: 303, headers: { location: "/dashboard/suppressions" } });
    const after = await browser.get("/dashboard/suppressions");
    expect(after.body).toContain("The address was removed from the list.");
    expect(after.body).not.toContain(email);
    const left = (await file.call("GET", "/suppressions?limit=100")).body.data as { email: string }[];
    expect(left.map((s) => s.email)).not.toContain(email);
  });
});

describe("an email's timeline", () => {
  it("begins with the email's first event and shows its headers past 100 events, a page of 100 at a time", async () => {
    const { body } = await send({ subject: "Opened a lot", headers: { "X-Entity-Ref-ID": "order-120" } });
    // What the tracking route records of each open, written as it writes it, through the email's decider.
    for (let i = 0; i < 120; i++) {
      const command: EmailCommand = {
        type: "RecordEmailOpened",
        ipAddress: "192.0.2.1",
        userAgent: "Mail",
        now: formatTimestamp(new Date()),
      };
      const metadata = { actor: "test", teamId: file.admin.teamId };
      await handleCommand({ store: file.testServices.store, streamId: emailStream(body.id), decider: emailDecider, command, metadata });
    }
    const browser = await session();
    const newest = await browser.get(`/dashboard/emails/${body.id}`);
    expect(newest.statusCode).toBe(200);
    const opened = (items: (string | undefined)[]) => items.filter((item) => item?.startsWith("Opened")).length;
    const newestItems = timelineItems(newest.body);
    expect(newestItems.slice(0, 2)).toEqual(["Queued", "Events between are on the older pages."]);
    expect(opened(newestItems)).toBe(100);
    expect(newest.body).toContain('<span class="mono">order-120</span>');
    const older = /<nav class="pager" aria-label="Timeline pages">[\s\S]*?href="([^"]+)">Older/.exec(newest.body)![1]!;
    const oldest = await browser.get(older.replaceAll("&amp;", "&"));
    const oldestItems = timelineItems(oldest.body);
    expect(oldestItems[0]).toBe("Queued");
    expect(opened(oldestItems)).toBe(20);
    expect(oldestItems).not.toContain("Events between are on the older pages.");
    expect(oldest.body).toContain("← Newer");
    expect(oldest.body).toContain('<span class="mono">order-120</span>');
  });
});

describe("signing out", () => {
  it("deletes the session on the server, so its cookie no longer opens a page", async () => {
    const { cookie, csrf, get } = await session();
    const res = await file.app.inject({
      method: "POST",
      url: "/dashboard/sign-out",
      headers: { ...formHeaders, cookie },
      payload: form({ csrf_token: csrf }),
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe("/dashboard/sign-in?signed_out=1");
    expect(res.headers["set-cookie"]).toContain("Max-Age=0");
    const after = await get("/dashboard/emails");
    expect(after.statusCode).toBe(303);
    expect(after.headers.location).toBe("/dashboard/sign-in");
  });
});
