import { describe, expect, it } from "vitest";
import { apiTestFile } from "../testing/apiTestFile.js";
import { dashboardSession } from "../testing/dashboardSessions.js";

const file = apiTestFile("dashboard-webhooks");
const session = () => dashboardSession(file);
const unknownId = "00000000-0000-4000-8000-000000000000";

const secretShown = (body: string) => /<code id="signing-secret">(whsec_[^<]+)<\/code>/.exec(body)?.[1];

async function aWebhook(key = file.admin) {
  const { status, body } = await file.call("POST", "/webhooks", { endpoint: "https://hooks.example.com/in", events: ["email.sent"] }, key);
  expect(status).toBe(201);
  return body as { id: string; signing_secret: string };
}

describe("the Webhooks pages", () => {
  it("add an endpoint with the chosen events, and show its signing secret once, on its page", async () => {
    const browser = await session();
    const form = await browser.get("/dashboard/webhooks/new");
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('value="email.delivered" checked');
    const created = await browser.post("/dashboard/webhooks", {
      endpoint: "https://hooks.example.com/made-in-dashboard",
      events: ["email.sent", "email.bounced"],
    });
    expect(created.statusCode).toBe(303);
    const id = /\/dashboard\/webhooks\/([0-9a-f-]{36})$/.exec(String(created.headers.location))![1]!;
    const page = await browser.get(`/dashboard/webhooks/${id}`);
    const secret = secretShown(page.body);
    expect(secret).toBe((await file.call("GET", `/webhooks/${id}`)).body.signing_secret);
    expect(page.body).toContain("No deliveries yet");
    expect((await file.call("GET", `/webhooks/${id}`)).body.events).toEqual(["email.sent", "email.bounced"]);
    expect((await browser.get(`/dashboard/webhooks/${id}`)).body).not.toContain(secret!);
    const list = await browser.get("/dashboard/webhooks");
    expect(list.body).toContain(`<a href="/dashboard/webhooks/${id}">https://hooks.example.com/made-in-dashboard</a>`);
  });

  it("keep what was typed when the API refuses an endpoint, and say why", async () => {
    const refused = await (await session()).post("/dashboard/webhooks", { endpoint: "https://hooks.example.com/no-events" });
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain("The endpoint was not added.");
    expect(refused.body).toContain("The `events` field must list at least 1 event type.");
    expect(refused.body).toContain('value="https://hooks.example.com/no-events"');
  });

  it("disable and enable an endpoint, rotate its secret (the new one shown once), and delete it", async () => {
    const webhook = await aWebhook();
    const browser = await session();
    const page = `/dashboard/webhooks/${webhook.id}`;
    expect((await browser.post(`${page}/status`, { status: "disabled" })).statusCode).toBe(303);
    expect((await browser.get(page)).body).toContain("The endpoint is disabled");
    expect((await file.call("GET", `/webhooks/${webhook.id}`)).body.status).toBe("disabled");
    await browser.post(`${page}/status`, { status: "enabled" });
    expect((await file.call("GET", `/webhooks/${webhook.id}`)).body.status).toBe("enabled");

    expect((await browser.post(`${page}/rotate`)).statusCode).toBe(303);
    const rotated = secretShown((await browser.get(page)).body);
    expect(rotated).toBe((await file.call("GET", `/webhooks/${webhook.id}`)).body.signing_secret);
    expect(rotated).not.toBe(webhook.signing_secret);
    expect((await browser.get(page)).body).not.toContain(rotated!);

    const deleted = await browser.post(`${page}/delete`);
    expect(deleted.headers.location).toBe("/dashboard/webhooks");
    expect((await browser.get("/dashboard/webhooks")).body).toContain("The endpoint is deleted.");
    expect((await file.call("GET", `/webhooks/${webhook.id}`)).status).toBe(404);
  });

  it("show another team's endpoint, and a delivery the endpoint does not have, as not found", async () => {
    const theirs = await aWebhook(file.other);
    const ours = await aWebhook();
    const browser = await session();
    const other = await browser.get(`/dashboard/webhooks/${theirs.id}`);
    expect(other.statusCode).toBe(404);
    expect(other.body).toContain("There is no webhook with this id in your team.");
    expect(other.body).not.toContain(theirs.signing_secret);
    const delivery = await browser.get(`/dashboard/webhooks/${ours.id}/deliveries/${unknownId}`);
    expect(delivery.statusCode).toBe(404);
    expect(delivery.body).toContain("There is no delivery with this id in your team.");
    expect((await browser.post(`/dashboard/webhooks/${theirs.id}/rotate`)).statusCode).toBe(303);
    expect((await browser.get(`/dashboard/webhooks/${theirs.id}`)).statusCode).toBe(404);
    expect((await file.call("GET", `/webhooks/${theirs.id}`, undefined, file.other)).body.signing_secret).toBe(theirs.signing_secret);
  });
});

const orderTemplate = {
  name: "Order shipped <b>",
  html: "<h1>Hi {{{NAME}}}</h1><p>Order {{{ORDER}}} ships {{{WHEN|soon}}}</p><script>parent.document.title = 'ran'</script>",
  subject: "Order {{{ORDER}}}",
  variables: [
    { key: "NAME", type: "string", fallback_value: "there" },
    { key: "ORDER", type: "number", fallback_value: null },
  ],
};

async function aTemplate(key = file.admin) {
  const { status, body } = await file.call("POST", "/templates", orderTemplate, key);
  expect(status).toBe(201);
  return body.id as string;
}

describe("the Templates pages", () => {
  it("list the team's templates with their status", async () => {
    const id = await aTemplate();
    const list = await (await session()).get("/dashboard/templates");
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(`<a href="/dashboard/templates/${id}">Order shipped &lt;b&gt;</a>`);
    expect(list.body).toContain('<span class="badge wait">draft</span>');
  });

  it("fill the sample form with the fallbacks, and say in words which value a preview lacks", async () => {
    const id = await aTemplate();
    const page = await (await session()).get(`/dashboard/templates/${id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/name="NAME"\s+type="text"\s+value="there"/);
    expect(page.body).toContain("Missing `ORDER` in `template.variables`");
    expect(page.body).not.toContain("<iframe");
  });

  it("preview with sample values, rendered as a send would, in a sandboxed frame served with a sandboxing CSP", async () => {
    const id = await aTemplate();
    const browser = await session();
    const page = await browser.get(`/dashboard/templates/${id}?NAME=%3Ci%3EAnn&ORDER=42`);
    expect(page.body).toContain("<strong>Subject:</strong> Order 42");
    const frameTag = /<iframe([^>]*)>/.exec(page.body)![1]!;
    expect(frameTag).toMatch(/\ssandbox=""/);
    const src = /src="([^"]+)"/.exec(frameTag)![1]!.replaceAll("&amp;", "&");
    expect(src).toBe(`/dashboard/templates/${id}/preview?NAME=%3Ci%3EAnn&ORDER=42`);
    const frame = await browser.get(src);
    expect(frame.statusCode).toBe(200);
    expect(frame.headers["content-security-policy"]).toMatch(/^sandbox; default-src 'none'/);
    expect(frame.body).toContain("<h1>Hi &lt;i&gt;Ann</h1><p>Order 42 ships soon</p>");

    const notANumber = await browser.get(`/dashboard/templates/${id}?NAME=Ann&ORDER=many`);
    expect(notANumber.body).toContain("`template.variables.ORDER` must be a number.");
  });

  it("publish a draft", async () => {
    const id = await aTemplate();
    const browser = await session();
    expect((await browser.get(`/dashboard/templates/${id}`)).body).toContain(">Publish</button>");
    expect((await browser.post(`/dashboard/templates/${id}/publish`)).statusCode).toBe(303);
    const page = await browser.get(`/dashboard/templates/${id}`);
    expect(page.body).toContain("The template is published");
    expect(page.body).not.toContain(">Publish</button>");
    expect((await file.call("GET", `/templates/${id}`)).body.status).toBe("published");
  });

  it("show another team's template, and its preview, as not found", async () => {
    const theirs = await aTemplate(file.other);
    const browser = await session();
    const page = await browser.get(`/dashboard/templates/${theirs}`);
    expect(page.statusCode).toBe(404);
    expect(page.body).toContain("There is no template with this id in your team.");
    const frame = await browser.get(`/dashboard/templates/${theirs}/preview?ORDER=1`);
    expect(frame.statusCode).toBe(404);
    expect(frame.body).not.toContain("Hi ");
  });
});

describe("the new pages' markup", () => {
  it("has no inline script or style, and marks the navigation's current page", async () => {
    const browser = await session();
    const webhook = await aWebhook();
    for (const [url, current] of [
      ["/dashboard/webhooks", "Webhooks"],
      ["/dashboard/webhooks/new", "Webhooks"],
      [`/dashboard/webhooks/${webhook.id}`, "Webhooks"],
      ["/dashboard/templates", "Templates"],
      [`/dashboard/templates/${await aTemplate()}?ORDER=7`, "Templates"],
    ] as const) {
      const res = await browser.get(url);
      expect([url, res.statusCode]).toEqual([url, 200]);
      expect(res.body).not.toMatch(/<script>|<script [^>]*>[^<]|\son[a-z]+=|\sstyle=|<style/);
      expect(res.body).toContain(`aria-current="page">${current}</a>`);
    }
  });
});
