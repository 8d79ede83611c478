import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import type { Resend } from "resend";
import { newContext, signIn } from "../support/dashboardBrowser.js";
import { dashboardSuite, itScreenshots, screenshotPages } from "../support/dashboardSuite.js";
import type { MailingServer } from "../support/mailingServer.js";
import { succeeded } from "../support/wire.js";

/**
 * The dashboard's Audience and Automations pages in a real browser (headless Debian Chromium, scripts on),
 * against a whole server whose sagas import the CSV and run the automation. The pages are also saved as
 * screenshots at a desktop and a phone width, in both colour schemes, under `test-results/dashboard/`.
 */

let mailing: MailingServer;
let resend: Resend;
let browser: Browser;
/** Every Content-Security-Policy violation a page reported. */
let violations: string[];

const suite = dashboardSuite();
beforeAll(() => {
  ({ mailing, resend, browser, violations } = suite);
});

const url = (path: string) => `${mailing.server.url}${path}`;

async function signedInPage() {
  const context = await newContext(browser, violations);
  const page = await context.newPage();
  await signIn(page, mailing.server.url, mailing.server.token);
  await page.getByRole("heading", { name: "Overview" }).waitFor();
  return page;
}

/** The automation's first run, once it has ended; fails after 90 s. */
async function endedRun(automationId: string) {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const runs = await succeeded(() => resend.automations.runs.list({ automationId, status: ["completed", "failed"] }));
    if (runs.data[0]) return runs.data[0];
    if (Date.now() > deadline) throw new Error(`automation ${automationId} has no ended run`);
    await sleep(200);
  }
}

describe("the dashboard's Audience and Automations pages", () => {
  it("search a contact by a part of its email, and open it", async () => {
    const segment = await succeeded(() => resend.segments.create({ name: "Readers" }));
    await succeeded(() => resend.topics.create({ name: "Weekly digest", defaultSubscription: "opt_in" }));
    await succeeded(() => resend.contacts.create({ email: "grace@navy.test", firstName: "Grace", segments: [{ id: segment.id }] }));
    await succeeded(() => resend.contacts.create({ email: "alan@bletchley.test", firstName: "Alan" }));
    const page = await signedInPage();
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Audience" }).click();
    await page.getByLabel("Email or name contains").fill("navy");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("link", { name: "grace@navy.test" }).waitFor();
    expect(await page.getByRole("link", { name: "alan@bletchley.test" }).count()).toBe(0);
    await page.getByRole("link", { name: "grace@navy.test" }).click();
    await page.getByRole("heading", { name: "grace@navy.test" }).waitFor();
    expect(await page.getByRole("cell", { name: "Readers" }).count()).toBe(1);
    expect(await page.getByRole("row", { name: /Weekly digest.*subscribed/ }).count()).toBe(1);
    await page.context().close();
  });

  it("upload a CSV with a good and a bad row, and watch the import reach its end with the row's error", { timeout: 180_000 }, async () => {
    const page = await signedInPage();
    await page.goto(url("/dashboard/audience/imports"));
    await page.getByLabel("A contact that exists already").selectOption("skip");
    const csv = "email,first_name\nimported@example.test,Ida\nnot an address,Bad\n";
    await page.getByLabel("CSV file").setInputFiles({ name: "people.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByRole("button", { name: "Start import" }).click();
    await page.getByText("The import of people.csv has started.").waitFor();
    // The page reloads itself while the import runs (script.ts), until the import has ended.
    await page.getByRole("heading", { name: "Import completed" }).waitFor({ timeout: 150_000 });
    const failed = page.getByRole("table", { name: "Rows that failed" }).getByRole("row");
    expect(await failed.count()).toBe(2);
    expect(await failed.nth(1).getByRole("cell").allTextContents()).toEqual(["3", "invalid email `not an address`"]);
    expect(await page.locator("[data-refresh]").count()).toBe(0);
    const contacts = await succeeded(() => resend.contacts.list());
    expect(contacts.data.map((c) => c.email)).toContain("imported@example.test");
    await page.context().close();
  });

  it("open an automation's run and see its steps", { timeout: 180_000 }, async () => {
    await succeeded(() => resend.events.create({ name: "reader.joined" }));
    const template = await succeeded(() =>
      resend.templates.create({ name: "Welcome", subject: "Welcome", html: "<p>Welcome</p>", from: "Acme <hello@acme.test>" }).publish(),
    );
    const automation = await succeeded(() =>
      resend.automations.create({
        name: "Welcome readers",
        status: "enabled",
        steps: [
          { key: "joined", type: "trigger", config: { eventName: "reader.joined" } },
          { key: "welcome", type: "send_email", config: { template: { id: template.id } } },
        ],
        connections: [{ from: "joined", to: "welcome" }],
      }),
    );
    await succeeded(() => resend.contacts.create({ email: "reader@example.test" }));
    await succeeded(() => resend.events.send({ event: "reader.joined", email: "reader@example.test" }));
    const run = await endedRun(automation.id);

    const page = await signedInPage();
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Automations" }).click();
    expect(await page.getByRole("row", { name: /Welcome readers.*enabled.*reader\.joined/ }).count()).toBe(1);
    await page.getByRole("link", { name: "Welcome readers" }).click();
    await page.locator(`a[href$="/runs/${run.id}"]`).click();
    await page.getByRole("heading", { name: "Run completed" }).waitFor();
    const steps = page.getByRole("table", { name: /The run's steps/ });
    expect(await steps.getByRole("row", { name: /joined.*trigger.*completed/ }).count()).toBe(1);
    expect(await steps.getByRole("row", { name: /welcome.*send email.*completed/ }).count()).toBe(1);
    await page.context().close();
  });

  itScreenshots("saves a screenshot of each page, at 1280 and 375 pixels wide, light and dark", async () => {
    const [contact] = (await succeeded(() => resend.contacts.list({ limit: 1 }))).data;
    const [imported] = (await succeeded(() => resend.contacts.imports.list())).data;
    const [automation] = (await succeeded(() => resend.automations.list())).data;
    const [run] = (await succeeded(() => resend.automations.runs.list({ automationId: automation!.id }))).data;
    await screenshotPages(suite, {
      pages: {
        contacts: "/dashboard/audience",
        contact: `/dashboard/audience/contacts/${contact!.id}`,
        segments: "/dashboard/audience/segments",
        topics: "/dashboard/audience/topics",
        properties: "/dashboard/audience/properties",
        imports: "/dashboard/audience/imports",
        import: `/dashboard/audience/imports/${imported!.id}`,
        automations: "/dashboard/automations",
        automation: `/dashboard/automations/${automation!.id}`,
        run: `/dashboard/automations/${automation!.id}/runs/${run!.id}`,
      },
    });
    expect(violations).toEqual([]);
    expect(suite.inaccessible).toEqual([]);
  });
});
