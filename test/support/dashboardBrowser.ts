import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

/** Debian's headless Chromium: playwright-core brings no browser, and `.ci/run` installs this one when it is missing. */
const executablePath = "/usr/bin/chromium";
/** Where the dashboard's browser tests save their screenshots, for a person to look at. */
export const screenshots = join(process.cwd(), "test-results", "dashboard");

/** Launches the browser; fails with what to install when it is missing. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(executablePath))
    throw new Error(`${executablePath} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does`);
  mkdirSync(screenshots, { recursive: true });
  return chromium.launch({ executablePath, args: ["--no-sandbox"] });
}

/**
 * A browser context at a width and colour scheme; every Content-Security-Policy violation its pages report
 * goes into `violations` (a page that needs one is broken for its users).
 */
export async function newContext(
  browser: Browser,
  violations: string[],
  options: { width?: number; dark?: boolean } = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: 800 },
    colorScheme: options.dark ? "dark" : "light",
  });
  context.on("console", (message) => {
    if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
  });
  return context;
}

/** Signs in on the dashboard of the server at `baseUrl` with an API key. */
export async function signIn(page: Page, baseUrl: string, token: string): Promise<void> {
  await page.goto(`${baseUrl}/dashboard`);
  await page.getByLabel("Full-access API key").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Reloads until the page shows `text`: what the sagas record shows on the next load, not on its own. */
export async function reloadUntil(page: Page, text: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.getByText(text, { exact: true }).count())) {
    if (Date.now() > deadline) throw new Error(`the page never showed "${text}"`);
    await new Promise((resolve) => setTimeout(resolve, 250));
    await page.reload();
  }
}

/**
 * Saves a full-page screenshot of each page (name → path on the server at `baseUrl`) at 1280 and 375 pixels
 * wide, light and dark, signed in with `token`. `ready` runs on a page before its screenshot, to wait for
 * what loads after the page does.
 */
export async function screenshotPages(options: {
  browser: Browser;
  violations: string[];
  baseUrl: string;
  token: string;
  pages: Record<string, string>;
  ready?: (name: string, page: Page) => Promise<void>;
}): Promise<void> {
  for (const dark of [false, true]) {
    for (const width of [1280, 375]) {
      const context = await newContext(options.browser, options.violations, { width, dark });
      const page = await context.newPage();
      await signIn(page, options.baseUrl, options.token);
      for (const [name, path] of Object.entries(options.pages)) {
        await page.goto(`${options.baseUrl}${path}`);
        await options.ready?.(name, page);
        await page.screenshot({ path: join(screenshots, `${name}-${width}-${dark ? "dark" : "light"}.png`), fullPage: true });
      }
      await context.close();
    }
  }
}
