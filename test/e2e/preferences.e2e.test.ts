import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { Resend } from "resend";
import { randomBase62 } from "@tidings/core";
import { unsubscribeUrl } from "@tidings/mail";
import { launchBrowser } from "../support/dashboardBrowser.js";
import { startTestServer, type TestServer } from "../support/testServer.js";
import { outsideSdkTypes, succeeded } from "../support/wire.js";

/**
 * The unsubscribe and preference page in a real browser (headless Debian Chromium, no JavaScript needed
 * by the page), checked through the API with the SDK.
 */

let server: TestServer;
let resend: Resend;
let browser: Browser;

beforeAll(async () => {
  // The browser starts while the server does; either way both are kept, for afterAll to close.
  const launching = launchBrowser();
  try {
    server = await startTestServer({ TIDINGS_SECRET: randomBase62(40) });
  } finally {
    browser = await launching;
  }
  resend = new Resend(server.token, { baseUrl: server.url });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** The link names the contact's team, which the API does not show: the server's event store does. */
async function teamOf(contactId: string): Promise<string> {
  const [created] = await server.serving.runtime.store.readStream(`contact-${contactId}`);
  return (created!.data as { teamId: string }).teamId;
}

describe("the preference page", () => {
  it("shows the topics, saves a change made in the browser, and one-click unsubscribes", async () => {
    const news = await succeeded(() =>
      outsideSdkTypes.post<{ id: string }>(resend, "/topics", { name: "News", default_subscription: "opt_in", visibility: "public" }),
    );
    const offers = await succeeded(() =>
      outsideSdkTypes.post<{ id: string }>(resend, "/topics", { name: "Offers", default_subscription: "opt_out", visibility: "public" }),
    );
    const contact = await succeeded(() => resend.contacts.create({ email: "reader@example.com" }));
    const teamId = await teamOf(contact.id);
    const link = (topicId: string | null) =>
      unsubscribeUrl(server.url, server.env.TIDINGS_SECRET!, {
        contactId: contact.id,
        teamId,
        topicId,
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
      });

    const page = await browser.newPage({ javaScriptEnabled: false });
    await page.goto(link(null));
    expect(await page.title()).toBe("Email preferences");
    const newsBox = page.getByLabel("News");
    const offersBox = page.getByLabel("Offers");
    expect(await newsBox.isChecked()).toBe(true);
    expect(await offersBox.isChecked()).toBe(false);
    await newsBox.uncheck();
    await offersBox.check();
    await page.getByRole("button", { name: "Save preferences" }).click();
    await page.getByText("Your preferences are saved.").waitFor();
    const topics = await succeeded(() => resend.contacts.topics.list({ id: contact.id }));
    expect(Object.fromEntries(topics.data.map((t) => [t.id, t.subscription]))).toEqual({ [news.id]: "opt_out", [offers.id]: "opt_in" });

    const good = link(null);
    const tampered = await page.goto(good.slice(0, -3) + (good.endsWith("abc") ? "xyz" : "abc"));
    expect(tampered?.status()).toBe(400);
    expect(await page.getByRole("heading").textContent()).toBe("This link does not work");

    // RFC 8058: the mail client POSTs `List-Unsubscribe=One-Click` to the link, without the page.
    const oneClick = await fetch(link(null), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(oneClick.status).toBe(200);
    expect(await succeeded(() => resend.contacts.get(contact.id))).toMatchObject({ unsubscribed: true });
    await page.close();
  });
});
