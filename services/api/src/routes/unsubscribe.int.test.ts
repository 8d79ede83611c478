import { describe, expect, it } from "vitest";
import { loadConfig } from "@tidings/core";
import { unsubscribeToken } from "@tidings/mail";
import { apiTestFile } from "../testing/apiTestFile.js";
import { testApiSettings } from "../testing/testServices.js";

const secret = "u".repeat(40);
const file = apiTestFile("unsubscribe", loadConfig({ ...testApiSettings, TIDINGS_SECRET: secret }));
const api = async (method: "GET" | "POST", url: string, payload?: unknown) => (await file.call(method, url, payload)).body;
const form = (url: string, body: string) =>
  file.app.inject({ method: "POST", url, headers: { "content-type": "application/x-www-form-urlencoded" }, payload: body });
const link = (contactId: string, topicId: string | null = null) =>
  `/unsubscribe/${unsubscribeToken(secret, { contactId, teamId: file.admin.teamId, topicId, expiresAt: Math.floor(Date.now() / 1000) + 3600 })}`;

async function aContactWithTopics() {
  const news = await api("POST", "/topics", { name: "News", default_subscription: "opt_in", visibility: "public" });
  const offers = await api("POST", "/topics", { name: "Offers", default_subscription: "opt_in", visibility: "public" });
  const contact = await api("POST", "/contacts", { email: `reader-${news.id.slice(0, 8)}@example.com` });
  const subscriptions = async () =>
    Object.fromEntries(
      ((await api("GET", `/contacts/${contact.id}/topics`)).data as { id: string; subscription: string }[]).map((s) => [
        s.id,
        s.subscription,
      ]),
    );
  return { news: news.id as string, offers: offers.id as string, contact: contact.id as string, subscriptions };
}

describe("/unsubscribe/:token", () => {
  it("shows a page with the contact's topics, checked as subscribed, with no key needed", async () => {
    const { contact, news } = await aContactWithTopics();
    const res = await file.app.inject({ method: "GET", url: link(contact) });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.body).toContain(`value="${news}" checked`);
    expect(res.body).toContain("Unsubscribe from everything");
    expect(res.body).not.toContain("<script");
  });

  it("answers a tampered or expired token with a friendly 400 page", async () => {
    const { contact } = await aContactWithTopics();
    const good = link(contact);
    const tampered = await file.app.inject({ method: "GET", url: good.slice(0, -2) + (good.endsWith("AA") ? "BB" : "AA") });
    expect(tampered.statusCode).toBe(400);
    expect(tampered.body).toContain("This link does not work");
    const expired = `/unsubscribe/${unsubscribeToken(secret, { contactId: contact, teamId: file.admin.teamId, topicId: null, expiresAt: 1 })}`;
    expect((await file.app.inject({ method: "GET", url: expired })).statusCode).toBe(400);
    expect((await form(expired, "List-Unsubscribe=One-Click")).statusCode).toBe(400);
  });

  it("saves the checked topics and opts out of the others", async () => {
    const { contact, news, offers, subscriptions } = await aContactWithTopics();
    const res = await form(link(contact), `topic=${offers}&action=save`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("Your preferences are saved.");
    expect(await subscriptions()).toMatchObject({ [news]: "opt_out", [offers]: "opt_in" });
  });

  it("one-click (RFC 8058) leaves only the link's topic, or everything without one", async () => {
    const { contact, news, offers, subscriptions } = await aContactWithTopics();
    expect((await form(link(contact, news), "List-Unsubscribe=One-Click")).statusCode).toBe(200);
    expect(await subscriptions()).toMatchObject({ [news]: "opt_out", [offers]: "opt_in" });
    expect((await api("GET", `/contacts/${contact}`)).unsubscribed).toBe(false);
    expect((await form(link(contact), "List-Unsubscribe=One-Click")).statusCode).toBe(200);
    expect((await api("GET", `/contacts/${contact}`)).unsubscribed).toBe(true);
  });

  it("unsubscribes from everything with the page's button", async () => {
    const { contact } = await aContactWithTopics();
    const res = await form(link(contact), "action=unsubscribe_all");
    expect(res.body).toContain("You are unsubscribed");
    expect((await api("GET", `/contacts/${contact}`)).unsubscribed).toBe(true);
  });

  it("takes the page's form only: a JSON body gets 415, whatever it holds, and changes nothing", async () => {
    const { contact, subscriptions } = await aContactWithTopics();
    const before = await subscriptions();
    const res = await file.app.inject({
      method: "POST",
      url: link(contact),
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ action: ["save"], topic: 5 }),
    });
    expect([res.statusCode, res.json().name]).toEqual([415, "validation_error"]);
    expect(res.json().message).toContain("application/x-www-form-urlencoded");
    expect(await subscriptions()).toEqual(before);
  });

  it("refuses a form field of the wrong kind with 422 naming it", async () => {
    const { contact } = await aContactWithTopics();
    const res = await form(link(contact), "action=explode");
    expect([res.statusCode, res.json().name]).toEqual([422, "validation_error"]);
    expect(res.json().message).toContain("`action[0]`");
  });
});
