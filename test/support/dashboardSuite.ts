import { afterAll, beforeAll } from "vitest";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import type { Resend } from "resend";
import { launchBrowser, newContext, screenshots, signIn } from "./dashboardBrowser.js";
import { startMailingServer, type MailingServer } from "./mailingServer.js";

/** A dashboard browser test file's deployment; set in `beforeAll`. */
export interface DashboardSuite {
  mailing: MailingServer;
  /** The SDK on the server's full-access key. */
  resend: Resend;
  browser: Browser;
  /** Every Content-Security-Policy violation a page reported (`newContext`). */
  violations: string[];
}

/**
 * A whole server delivering to a loopback SMTP sink, on `env`, and headless Chromium, for the file it is
 * called in: started in `beforeAll` (the browser launching meanwhile), stopped in `afterAll`.
 */
export function dashboardSuite(env: Record<string, string> = {}): DashboardSuite {
  const suite = { violations: [] as string[] } as DashboardSuite;
  beforeAll(async () => {
    const launching = launchBrowser();
    try {
      suite.mailing = await startMailingServer(env);
      suite.resend = suite.mailing.resend;
    } finally {
      suite.browser = await launching;
    }
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.mailing?.stop();
  });
  return suite;
}

/**
 * Saves a full-page screenshot of each page (name → path on the suite's server) at 1280 and 375 pixels
 * wide, light and dark, signed in with the server's key. `ready` runs on a page before its screenshot, to
 * wait for what loads after the page does.
 */
export async function screenshotPages(
  suite: DashboardSuite,
  { pages, ready }: { pages: Record<string, string>; ready?: (name: string, page: Page) => Promise<void> },
): Promise<void> {
  const { url, token } = suite.mailing.server;
  for (const dark of [false, true]) {
    for (const width of [1280, 375]) {
      const context = await newContext(suite.browser, suite.violations, { width, dark });
      const page = await context.newPage();
      await signIn(page, url, token);
      for (const [name, path] of Object.entries(pages)) {
        await page.goto(`${url}${path}`);
        await ready?.(name, page);
        await page.screenshot({ path: join(screenshots, `${name}-${width}-${dark ? "dark" : "light"}.png`), fullPage: true });
      }
      await context.close();
    }
  }
}
