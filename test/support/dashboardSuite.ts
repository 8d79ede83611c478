import { afterAll, beforeAll, it } from "vitest";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import type { Resend } from "resend";
import { accessibilityViolations } from "./accessibility.js";
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
  /** Every WCAG 2.1 A or AA violation axe-core found on a page `screenshotPages` showed, with the page. */
  inaccessible: string[];
}

/**
 * A whole server delivering to a loopback SMTP sink, on `env`, and headless Chromium, for the file it is
 * called in: started in `beforeAll` (the browser launching meanwhile), stopped in `afterAll`.
 */
export function dashboardSuite(env: Record<string, string> = {}): DashboardSuite {
  const suite = { violations: [] as string[], inaccessible: [] as string[] } as DashboardSuite;
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
 * The widths and colour schemes every page is shown in, and what axe-core checks in each: a dark view only
 * the rules a colour scheme changes (`accessibilityViolations`), as the scheme changes nothing else.
 */
const views = [
  { width: 1280, dark: false, checks: "all" },
  { width: 1280, dark: true, checks: "colours" },
  { width: 375, dark: false, checks: "all" },
  { width: 375, dark: true, checks: "colours" },
] as const;

/**
 * Saves a full-page screenshot of each page (name → path on the suite's server) in each of `views`, signed
 * in with `token`, the server's key unless told (`signedOut` pages before signing in), and checks it with axe-core into
 * `suite.inaccessible`. A page is loaded once and its viewport and colour scheme changed under it: a context
 * and a sign-in a view took as long as the pages themselves. `ready` runs on a page before each screenshot,
 * to wait for what loads after the page does.
 */
export async function screenshotPages(
  suite: DashboardSuite,
  {
    pages,
    signedOut = {},
    ready,
    token = suite.mailing.server.token,
  }: {
    pages: Record<string, string>;
    signedOut?: Record<string, string>;
    ready?: (name: string, page: Page) => Promise<void>;
    token?: string;
  },
): Promise<void> {
  const { url } = suite.mailing.server;
  const context = await newContext(suite.browser, suite.violations);
  const page = await context.newPage();
  const show = async (name: string, path: string) => {
    await page.goto(`${url}${path}`);
    for (const { width, dark, checks } of views) {
      const view = `${width}-${dark ? "dark" : "light"}`;
      await page.setViewportSize({ width, height: 800 });
      await page.emulateMedia({ colorScheme: dark ? "dark" : "light" });
      await ready?.(name, page);
      await page.screenshot({ path: join(screenshots, `${name}-${view}.png`), fullPage: true });
      for (const violation of await accessibilityViolations(page, checks)) suite.inaccessible.push(`${name} at ${view}: ${violation}`);
    }
  };
  for (const [name, path] of Object.entries(signedOut)) await show(name, path);
  await signIn(page, url, token);
  for (const [name, path] of Object.entries(pages)) await show(name, path);
  await context.close();
}

/**
 * Whether this run leaves the screenshot tests to server mode: `npm test` sets TIDINGS_TEST_EMBEDDED=mode-dependent
 * on its embedded tier when the server tier runs too (scripts/modeIndependentFiles.mjs). The pages are the same
 * HTML in either mode, so their screenshots and the checks made on them (CSP, axe-core, overflow) are taken
 * once; the browser tests of what a person does run in both modes.
 */
const screenshotsInServerModeOnly = process.env.TIDINGS_TEST_EMBEDDED === "mode-dependent";

/** A file's screenshot test (`screenshotPages`), skipped with its reason printed where server mode takes it. */
export function itScreenshots(title: string, body: () => Promise<void>): void {
  if (screenshotsInServerModeOnly)
    console.log(
      `skipped "${title}": the server tier takes the screenshots, the same pages in either mode (test/support/dashboardSuite.ts)`,
    );
  it.skipIf(screenshotsInServerModeOnly)(title, { timeout: 300_000 }, body);
}
