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

describe("the new pages' markup", () => {
  it("has no inline script or style, and marks the navigation's current page", async () => {
    const browser = await session();
    const webhook = await aWebhook();
    for (const [url, current] of [
      ["/dashboard/webhooks", "Webhooks"],
      ["/dashboard/webhooks/new", "Webhooks"],
      [`/dashboard/webhooks/${webhook.id}`, "Webhooks"],
    ] as const) {
      const res = await browser.get(url);
      expect([url, res.statusCode]).toEqual([url, 200]);
      expect(res.body).not.toMatch(/<script>|<script [^>]*>[^<]|\son[a-z]+=|\sstyle=|<style/);
      expect(res.body).toContain(`aria-current="page">${current}</a>`);
    }
  });
});
