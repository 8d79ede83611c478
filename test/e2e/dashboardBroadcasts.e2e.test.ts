import { beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { newContext, signIn } from "../support/dashboardBrowser.js";
import { dashboardSuite, itScreenshots, screenshotPages } from "../support/dashboardSuite.js";
import type { MailingServer } from "../support/mailingServer.js";
import { succeeded } from "../support/wire.js";

/**
 * The dashboard's Broadcasts pages in a real browser (headless Debian Chromium, scripts on), against a whole
 * server that delivers to a loopback SMTP sink: a broadcast written and sent in the dashboard reaches its
 * segment, and its counts on the dashboard are what the sink received.
 */

let mailing: MailingServer;
let browser: Browser;
let segmentId: string;
/** Every Content-Security-Policy violation a page reported. */
let violations: string[];
const readers = ["ann", "bob", "cara"].map((name) => ({
  email: `${name}@readers.test`,
  firstName: name[0]!.toUpperCase() + name.slice(1),
}));

const suite = dashboardSuite();
beforeAll(async () => {
  ({ mailing, browser, violations } = suite);
  segmentId = (await succeeded(() => mailing.resend.segments.create({ name: "Dashboard readers" }))).id;
  for (const reader of readers)
    await succeeded(() =>
      mailing.resend.contacts.create({ email: reader.email, firstName: reader.firstName, segments: [{ id: segmentId }] }),
    );
});

const url = (path: string) => `${mailing.server.url}${path}`;

/** A count of the broadcast's page, by its label. */
const count = async (page: Page, label: string) =>
  Number(
    await page
      .locator("section[aria-labelledby=counts-heading] dt", { hasText: new RegExp(`^${label}$`) })
      .locator("xpath=following-sibling::dd[1]")
      .textContent(),
  );

/** Reloads the broadcast's page until its counts stop moving with every email delivered, as the sagas record it. */
async function settledCounts(page: Page, expected: number, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = Object.fromEntries(
      await Promise.all(["Recipients", "Sent", "Delivered", "Bounced", "Failed"].map(async (label) => [label, await count(page, label)])),
    );
    if (counts.Delivered === expected || Date.now() > deadline) return counts;
    await new Promise((resolve) => setTimeout(resolve, 500));
    await page.reload();
  }
}

describe("the dashboard's broadcasts", () => {
  it("writes a broadcast, previews it for a contact, sends it, and counts what the segment received", async () => {
    const context = await newContext(browser, violations);
    const page = await context.newPage();
    await signIn(page, mailing.server.url, mailing.server.token);
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Broadcasts" }).click();
    await page.getByRole("link", { name: "New broadcast" }).click();
    await page.getByLabel("Name").fill("Dashboard spring news");
    await page.getByLabel("From").fill("Acme News <news@acme.test>");
    await page.getByLabel("Subject").fill("Spring news for {{{FIRST_NAME|you}}}");
    await page.getByLabel("Segment").selectOption({ label: "Dashboard readers" });
    await page.getByLabel("HTML").fill("<h1>Hello {{{FIRST_NAME|there}}}</h1><p>Spring is here.</p>");
    await page.getByRole("button", { name: "Save draft" }).click();
    await page.getByText("The draft is saved.").waitFor();
    const id = /\/dashboard\/broadcasts\/([0-9a-f-]{36})\/edit/.exec(page.url())![1]!;

    await page.getByLabel("Contact's email").fill("bob@readers.test");
    await page.getByRole("button", { name: "Preview" }).click();
    await page.getByText("Spring news for Bob").waitFor();
    await page.frameLocator("iframe.preview").getByRole("heading", { name: "Hello Bob" }).waitFor();
    expect(await page.locator("iframe.preview").getAttribute("sandbox")).toBe("");

    await page.getByRole("link", { name: "Send or schedule this draft" }).click();
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Send now" }).click();
    await page.getByText("The broadcast is sending.").waitFor();
    expect(page.url()).toBe(url(`/dashboard/broadcasts/${id}`));

    const counts = await settledCounts(page, readers.length);
    const addresses = new Set(readers.map((r) => r.email));
    const received = mailing.sink.received.filter((m) => m.envelope.to.some((to) => addresses.has(to)));
    expect(received).toHaveLength(readers.length);
    expect(counts).toEqual({ Recipients: received.length, Sent: received.length, Delivered: received.length, Bounced: 0, Failed: 0 });
    for (const reader of readers) await page.getByRole("link", { name: reader.email }).waitFor();

    // The list's counts come from the email metrics, a projection of their own: they settle on a later load.
    await page.getByRole("link", { name: "← All broadcasts" }).click();
    const row = page.getByRole("row").filter({ hasText: "Dashboard spring news" });
    const deadline = Date.now() + 30_000;
    while ((await row.locator('td[data-label="Delivered"]').textContent())?.trim() !== String(received.length)) {
      if (Date.now() > deadline) throw new Error("the list never counted every delivered email");
      await new Promise((resolve) => setTimeout(resolve, 500));
      await page.reload();
    }
    expect((await row.locator('td[data-label="Sent"]').textContent())?.trim()).toBe(String(received.length));
    await context.close();
    expect(violations).toEqual([]);
  });

  itScreenshots("saves a screenshot of each Broadcasts page, at 1280 and 375 pixels wide, light and dark", async () => {
    const draft = await succeeded(() =>
      mailing.resend.broadcasts.create({
        segmentId,
        from: "Acme News <news@acme.test>",
        subject: "Summer news for {{{FIRST_NAME|you}}}",
        html: "<h1>Hello {{{FIRST_NAME|there}}}</h1><p>Summer is coming.</p>",
        name: "Summer news, a draft",
      }),
    );
    const sent = (await succeeded(() => mailing.resend.broadcasts.list())).data.find((b) => b.status !== "draft")!;
    await screenshotPages(suite, {
      pages: {
        broadcasts: "/dashboard/broadcasts",
        "broadcast-new": "/dashboard/broadcasts/new",
        "broadcast-edit": `/dashboard/broadcasts/${draft.id}/edit?contact=ann%40readers.test`,
        "broadcast-sent": `/dashboard/broadcasts/${sent.id}`,
      },
      // A frame below the fold is not painted into a full-page screenshot until it has been in view once.
      ready: async (name, page) => {
        if (name !== "broadcast-edit") return;
        await page.frameLocator("iframe.preview").getByRole("heading").waitFor();
        await page.locator("iframe.preview").scrollIntoViewIfNeeded();
      },
    });
    expect(violations).toEqual([]);
    expect(suite.inaccessible).toEqual([]);
  });
});
