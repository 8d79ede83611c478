import { afterAll, beforeAll } from "vitest";
import type { Browser } from "playwright-core";
import type { Resend } from "resend";
import { launchBrowser } from "./dashboardBrowser.js";
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
