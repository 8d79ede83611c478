import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { newContext, reloadUntil, signIn as signInAs } from "../support/dashboardBrowser.js";
import { dashboardSuite, itScreenshots, screenshotPages } from "../support/dashboardSuite.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhookReceiver.js";
import { succeeded } from "../support/wire.js";

/**
 * The dashboard's Webhooks and Templates pages in a real browser, against a whole server whose webhooks
 * go to a real HTTP receiver on loopback. Each delivery has one attempt a round (the retry schedule is
 * `0`), so an endpoint answering 500 leaves it failed until someone replays it.
 */

const t = dashboardSuite({ WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_SCHEDULE_MS: "0" });
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

const url = (path: string) => `${t.mailing.server.url}${path}`;

async function signedInPage(): Promise<Page> {
  const page = await (await newContext(t.browser, t.violations)).newPage();
  await signInAs(page, t.mailing.server.url, t.mailing.server.token);
  return page;
}

const sendAnEmail = () =>
  succeeded(() => t.resend.emails.send({ from: "Acme <hello@acme.test>", to: "ann@example.test", subject: "Hooked", html: "<p>Hi</p>" }));

describe("the dashboard's Webhooks pages", () => {
  it("add an endpoint, show a failed delivery's 500, and replay it under the same svix-id", async () => {
    receiver.answer("/replayed", [500, 200]);
    const page = await signedInPage();
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("link", { name: "Add an endpoint" }).click();
    await page.getByLabel("Endpoint URL").fill(`${receiver.url}/replayed`);
    await page.getByLabel("email.bounced", { exact: true }).uncheck();
    expect(await page.getByLabel("email.delivered", { exact: true }).isChecked()).toBe(true);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    expect((await page.locator("#signing-secret").textContent())!).toMatch(/^whsec_/);

    await sendAnEmail();
    const [first] = await receiver.waitFor("/replayed", 1);
    await reloadUntil(page, "failed");
    await page.getByRole("link", { name: "email.delivered", exact: true }).click();
    const eventId = first!.headers["svix-id"]!.replace(/^msg_/, "");
    expect(page.url()).toMatch(new RegExp(`/deliveries/${eventId}$`));
    await page.getByRole("cell", { name: "500", exact: true }).waitFor();
    await page.getByText("failed with 500").waitFor();

    await page.getByRole("button", { name: "Replay" }).click();
    await page.getByRole("status").getByText("Replay started").waitFor();
    const [, replayed] = await receiver.waitFor("/replayed", 2);
    expect(replayed!.headers["svix-id"]).toBe(first!.headers["svix-id"]);
    expect(replayed!.body).toBe(first!.body);
    await reloadUntil(page, "200");
    const statuses = await page
      .getByRole("table", { name: "Attempts, newest first" })
      .locator("td[data-label='HTTP status']")
      .allTextContents();
    expect(statuses.map((s) => s.trim())).toEqual(["200", "500"]);
    await reloadUntil(page, "success");
    await page.context().close();
  });

  it("rotates the signing secret and shows the new one once", async () => {
    const webhook = await succeeded(() => t.resend.webhooks.create({ endpoint: `${receiver.url}/rotated`, events: ["email.sent"] }));
    const page = await signedInPage();
    await page.goto(url(`/dashboard/webhooks/${webhook.id}`));
    expect(await page.getByText(webhook.signing_secret).count()).toBe(0);
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Rotate signing secret" }).click();
    const secret = (await page.locator("#signing-secret").textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(webhook.signing_secret);
    expect((await succeeded(() => t.resend.webhooks.get(webhook.id))).signing_secret).toBe(secret);
    await page.reload();
    expect(await page.getByText(secret).count()).toBe(0);
    await page.context().close();
  });

  // A full-page screenshot and an axe-core check of each page in four views: over a minute on a loaded 2-core machine.
  itScreenshots("saves a screenshot of each new page, at 1280 and 375 pixels wide, light and dark", async () => {
    receiver.answer("/shown", [503]);
    const webhook = await succeeded(() =>
      t.resend.webhooks.create({ endpoint: `${receiver.url}/shown`, events: ["email.sent", "email.delivered", "email.bounced"] }),
    );
    await sendAnEmail();
    const [received] = await receiver.waitFor("/shown", 1);
    const eventId = received!.headers["svix-id"]!.replace(/^msg_/, "");
    const template = await succeeded(() =>
      t.resend.templates.create({
        name: "Order shipped",
        subject: "Your order {{{ORDER}}} ships",
        from: "Shop <shop@acme.test>",
        html: "<h1>Hi {{{NAME}}}</h1><p>Your order {{{ORDER}}} ships {{{WHEN|tomorrow}}}.</p>",
        variables: [
          { key: "NAME", type: "string", fallbackValue: "there" },
          { key: "ORDER", type: "number", fallbackValue: 1042 },
        ],
      }),
    );
    const page = await signedInPage();
    await page.goto(url(`/dashboard/webhooks/${webhook.id}`));
    await reloadUntil(page, "failed");
    await page.context().close();
    await screenshotPages(t, {
      pages: {
        webhooks: "/dashboard/webhooks",
        "webhook-new": "/dashboard/webhooks/new",
        webhook: `/dashboard/webhooks/${webhook.id}`,
        "webhook-delivery": `/dashboard/webhooks/${webhook.id}/deliveries/${eventId}`,
        templates: "/dashboard/templates",
        template: `/dashboard/templates/${template.id}`,
        "template-not-found": "/dashboard/templates/00000000-0000-4000-8000-000000000000",
      },
      // As the email's frame (dashboard.e2e.test.ts): painted once it has a heading and has been in view.
      ready: async (name, shown) => {
        if (name !== "template") return;
        await shown.frameLocator("iframe.preview").getByRole("heading", { name: "Hi there" }).waitFor();
        await shown.locator("iframe.preview").scrollIntoViewIfNeeded();
      },
    });
    expect(t.violations).toEqual([]);
    expect(t.inaccessible).toEqual([]);
  });
});
