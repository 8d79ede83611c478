import { describe, expect, it } from "vitest";
import type { Locator, Page } from "playwright-core";
import { Resend } from "resend";
import { newContext, reloadUntil, signIn as signInAs } from "../support/dashboardBrowser.js";
import { dashboardSuite, itScreenshots, screenshotPages } from "../support/dashboardSuite.js";
import { aTeamKey } from "../support/teamKey.js";
import { succeeded } from "../support/wire.js";

/**
 * The dashboard in a real browser (headless Debian Chromium, scripts on), against a whole server that
 * delivers to a loopback SMTP sink. Every page is also saved as a screenshot at a desktop and a phone
 * width, in both colour schemes, under `test-results/dashboard/`, for a person to look at.
 */

const t = dashboardSuite();

const url = (path: string) => `${t.mailing.server.url}${path}`;
const signIn = (page: Page, token: string) => signInAs(page, t.mailing.server.url, token);

/** Whether the focused element draws a focus ring and is inside the viewport. */
const focusShown = (page: Page) =>
  page.evaluate<boolean>(`(() => {
    const style = getComputedStyle(document.activeElement);
    const box = document.activeElement.getBoundingClientRect();
    const ring = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2;
    return ring && box.left >= 0 && box.top >= 0 && box.right <= innerWidth && box.bottom <= innerHeight;
  })()`);

const hasFocus = (target: Locator) => target.evaluate((element) => element === element.ownerDocument.activeElement);

/** Presses Tab until `target` has the focus, which it must then show; fails after `most` presses. */
async function tabTo(page: Page, target: Locator, most = 40): Promise<void> {
  for (let presses = 0; presses < most; presses++) {
    await page.keyboard.press("Tab");
    if (await hasFocus(target)) return expect(await focusShown(page)).toBe(true);
  }
  const at = await page.evaluate<string>("document.activeElement.outerHTML.slice(0, 100)");
  throw new Error(`${most} presses of Tab never reached ${target}, but ${at}`);
}

describe("the dashboard", () => {
  it("signs in, finds an email sent through the SDK, and shows its timeline reach delivered", async () => {
    const sent = await succeeded(() =>
      t.resend.emails.send({
        from: "Acme <hello@acme.test>",
        to: "ann@example.test",
        subject: "Dashboard e2e",
        html: "<h1>Hello Ann</h1><p>Your order shipped.</p><script>document.title = 'ran'</script>",
        headers: { "X-Entity-Ref-ID": "order-7" },
      }),
    );
    const context = await newContext(t.browser, t.violations);
    const page = await context.newPage();
    await signIn(page, t.mailing.server.token);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Emails" }).click();
    await page.getByRole("link", { name: "Dashboard e2e" }).click();
    expect(page.url()).toBe(url(`/dashboard/emails/${sent.id}`));
    await reloadUntil(page, "Delivered");
    expect(await page.getByText("X-Entity-Ref-ID").count()).toBe(1);
    // The body shows in its frame, whose script never ran: the frame is sandboxed without scripts.
    const frame = page.frameLocator("iframe.preview");
    await frame.getByRole("heading", { name: "Hello Ann" }).waitFor();
    expect(await page.locator("iframe.preview").getAttribute("sandbox")).toBe("");
    await context.close();
  });

  it("copies a domain's DNS record", async () => {
    const domain = await succeeded(() => t.resend.domains.create({ name: "dashboard-copy.test" }));
    const context = await newContext(t.browser, t.violations);
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: t.mailing.server.url });
    const page = await context.newPage();
    await signIn(page, t.mailing.server.token);
    await page.goto(url(`/dashboard/domains/${domain.id}`));
    const record = domain.records.find((r) => r.record === "DKIM")!;
    await page.getByRole("button", { name: "Copy the DKIM record's value" }).click();
    await page.getByRole("button", { name: "Copy the DKIM record's value" }).getByText("Copied").waitFor();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(record.value);
    await context.close();
  });

  it("adds a domain, turns receiving on and sees its MX record to publish, then deletes the domain after asking", async () => {
    const context = await newContext(t.browser, t.violations);
    const page = await context.newPage();
    await signIn(page, t.mailing.server.token);
    await page.goto(url("/dashboard/domains"));
    await page.getByRole("link", { name: "Add a domain" }).click();
    await page.getByLabel("Domain name").fill("dashboard-added.test");
    await page.getByLabel("Region").selectOption("eu-west-1");
    await page.getByRole("button", { name: "Add domain" }).click();
    await page.getByText("The domain is added.").waitFor();
    expect(await page.getByRole("button", { name: "Copy the Receiving record's value" }).count()).toBe(0);
    await page.getByLabel("Receiving").check();
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("The settings are saved.").waitFor();
    await page.getByRole("button", { name: "Copy the Receiving record's value" }).waitFor();
    const id = /\/dashboard\/domains\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
    const domain = await succeeded(() => t.resend.domains.get(id));
    expect(domain).toMatchObject({ name: "dashboard-added.test", region: "eu-west-1", capabilities: { receiving: "enabled" } });
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Delete dashboard-added.test" }).click();
    await page.getByText("The domain is deleted.").waitFor();
    expect((await t.resend.domains.get(id)).error?.name).toBe("not_found");
    await context.close();
  });

  it("creates an API key and shows its token once", async () => {
    const context = await newContext(t.browser, t.violations);
    const page = await context.newPage();
    await signIn(page, t.mailing.server.token);
    await page.goto(url("/dashboard/api-keys"));
    await page.getByLabel("Name").fill("Made in a browser");
    await page.getByRole("button", { name: "Create key" }).click();
    const token = (await page.locator("#new-token").textContent())!.trim();
    expect(token).toMatch(/^re_/);
    const listed = await succeeded(() => new Resend(token, { baseUrl: t.mailing.server.url }).apiKeys.list());
    expect(listed.data.map((k) => k.name)).toContain("Made in a browser");
    await page.reload();
    expect(await page.getByText(token).count()).toBe(0);
    expect(await page.getByRole("cell", { name: "Made in a browser", exact: true }).count()).toBe(1);
    await context.close();
  });

  it("shows another team's email, webhook and broadcast as not found, with a 404", async () => {
    const other = new Resend(await aTeamKey(t.mailing.server.serving.runtime, "other"), { baseUrl: t.mailing.server.url });
    const email = await succeeded(() =>
      other.emails.send({ from: "Other <hi@other.test>", to: "ann@example.test", subject: "Another team's email", html: "<p>Hi</p>" }),
    );
    const webhook = await succeeded(() => other.webhooks.create({ endpoint: "https://other.test/hooks", events: ["email.sent"] }));
    const segment = await succeeded(() => other.segments.create({ name: "Other readers" }));
    const broadcast = await succeeded(() =>
      other.broadcasts.create({
        segmentId: segment.id,
        from: "Other <hi@other.test>",
        subject: "Another team's news",
        html: "<p>News</p>",
      }),
    );
    const context = await newContext(t.browser, t.violations);
    const page = await context.newPage();
    await signIn(page, t.mailing.server.token);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    for (const [path, heading, words] of [
      [`/dashboard/emails/${email.id}`, "Email not found", "There is no email with this id in your team."],
      [`/dashboard/webhooks/${webhook.id}`, "Webhook not found", "There is no webhook with this id in your team."],
      [`/dashboard/broadcasts/${broadcast.id}`, "Broadcast not found", "There is no broadcast with this id in your team."],
    ] as const) {
      const response = await page.goto(url(path));
      expect([path, response?.status()]).toEqual([path, 404]);
      await page.getByRole("heading", { name: heading }).waitFor();
      await page.getByRole("alert").getByText(words).waitFor();
      expect(await page.getByText("Another team's").count()).toBe(0);
    }
    await context.close();
  });

  it("signs out, after which its pages ask to sign in again", async () => {
    const context = await newContext(t.browser, t.violations);
    const page = await context.newPage();
    await signIn(page, t.mailing.server.token);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByText("You are signed out.").waitFor();
    await page.goto(url("/dashboard/emails"));
    expect(page.url()).toBe(url("/dashboard/sign-in"));
    expect(await context.cookies()).toEqual([]);
    await context.close();
  });

  it("refuses a sending-access key, saying why", async () => {
    const sender = await succeeded(() => t.resend.apiKeys.create({ name: "Sender", permission: "sending_access" }));
    const context = await newContext(t.browser, t.violations);
    const page = await context.newPage();
    await signIn(page, sender.token);
    await page.getByRole("alert").getByText("This key has sending access only").waitFor();
    expect(page.url()).toBe(url("/dashboard/sign-in"));
    expect(await context.cookies()).toEqual([]);
    await context.close();
  });

  it("is used from the keyboard alone: a skip link, a visible focus, the navigation, a form and signing out", async () => {
    const context = await newContext(t.browser, t.violations, { width: 375 });
    const page = await context.newPage();
    await signIn(page, t.mailing.server.token);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    const skip = page.getByRole("link", { name: "Skip to content" });
    await tabTo(page, skip, 1);
    await tabTo(page, page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Emails" }));
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Emails" }).waitFor();
    await tabTo(page, skip, 1);
    await page.keyboard.press("Enter");
    expect(await hasFocus(page.getByRole("main"))).toBe(true);
    await tabTo(page, page.getByLabel("Recipient or subject"), 1);
    await page.keyboard.type("receipt");
    await page.keyboard.press("Enter");
    await page.waitForURL(/search=receipt/);
    expect(await page.getByLabel("Recipient or subject").inputValue()).toBe("receipt");
    await tabTo(page, page.getByRole("button", { name: "Sign out" }));
    await page.keyboard.press("Enter");
    await page.getByText("You are signed out.").waitFor();
    await context.close();
  });

  it("marks the page busy while a link loads the next one, but not for a link within the page", async () => {
    const context = await newContext(t.browser, t.violations);
    const page = await context.newPage();
    await signIn(page, t.mailing.server.token);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    const busy = () => page.evaluate<string | null>("document.body.getAttribute('aria-busy')");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    expect(await hasFocus(page.getByRole("main"))).toBe(true);
    expect(await busy()).toBeNull();
    // What the page was like as the browser left it for the next, kept where the next page can read it.
    await page.evaluate(`addEventListener("pagehide", () => {
      const dimmed = document.body.getAttribute("aria-busy") === "true" && document.body.classList.contains("loading");
      sessionStorage.setItem("busy-when-left", String(dimmed));
    })`);
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Logs" }).click();
    await page.getByRole("heading", { name: "Logs" }).waitFor();
    expect(await page.evaluate<string | null>("sessionStorage.getItem('busy-when-left')")).toBe("true");
    expect(await busy()).toBeNull();
    await context.close();
  });

  // A full-page screenshot and an axe-core check of each page in four views: over a minute on a loaded 2-core machine.
  itScreenshots("saves a screenshot of every page, at 1280 and 375 pixels wide, light and dark", async () => {
    const email = await succeeded(() =>
      t.resend.emails.send({
        from: "Acme <hello@acme.test>",
        to: ["ann@example.test", "bob@example.test"],
        subject: "Your receipt for order 7",
        html: "<h1>Thanks for your order</h1><p>It ships tomorrow.</p>",
        headers: { "X-Entity-Ref-ID": "order-7" },
      }),
    );
    const domain = await succeeded(() => t.resend.domains.create({ name: "dashboard-screenshots.test" }));
    const claim = await succeeded(() => t.resend.post<{ domain_id: string }>("/domains/claim", { name: "dashboard-claimed.test" }));
    await succeeded(() => t.resend.post("/suppressions", { email: "bounced@example.test" }));
    // More keys than a page holds, so that the API keys page shows its pager.
    for (let i = 1; i <= 25; i++) await succeeded(() => t.resend.apiKeys.create({ name: `Screenshot key ${i}` }));
    const pages: Record<string, string> = {
      overview: "/dashboard",
      emails: "/dashboard/emails",
      email: `/dashboard/emails/${email.id}`,
      domains: "/dashboard/domains",
      domain: `/dashboard/domains/${domain.id}`,
      "domain-new": "/dashboard/domains/new",
      "domain-claim": `/dashboard/domains/${claim.domain_id}/claim`,
      "api-keys": "/dashboard/api-keys",
      suppressions: "/dashboard/suppressions",
      logs: "/dashboard/logs",
      "not-found": "/dashboard/emails/00000000-0000-4000-8000-000000000000",
    };
    await screenshotPages(t, {
      pages,
      signedOut: { "sign-in": "/dashboard/sign-in" },
      // The email's frame is a document of its own (another process, being sandboxed): shown once it has a heading.
      // A frame below the fold is not painted into a full-page screenshot until it has been in view once.
      ready: async (name, page) => {
        if (name !== "email") return;
        await page.frameLocator("iframe.preview").getByRole("heading").waitFor();
        await page.locator("iframe.preview").scrollIntoViewIfNeeded();
      },
    });
    // A team that has sent nothing: the Overview's empty state.
    await screenshotPages(t, {
      pages: { "overview-empty": "/dashboard" },
      token: await aTeamKey(t.mailing.server.serving.runtime, "quiet"),
    });
    expect(t.violations).toEqual([]);
    expect(t.inaccessible).toEqual([]);
  });
});
