import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

/**
 * Debian's Chromium builds (playwright-core brings no browser; `.ci/run` installs the first when it is
 * missing): the old headless shell first, the same Blink without the full browser's window machinery. The
 * dashboard's browser files took 44% less CPU in it (83 against 148 CPU-s for the browser's processes, four
 * files, 2026-11-29), and the browser had been a seventh of `npm test`'s CPU.
 */
const candidates = ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium"];
/** Where the dashboard's browser tests save their screenshots, for a person to look at. */
export const screenshots = join(process.cwd(), "test-results", "dashboard");

/** Launches the browser; fails with what to install when it is missing. */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = candidates.find((path) => existsSync(path));
  if (!executablePath)
    throw new Error(
      `${candidates.join(" and ")} are missing: install Debian's chromium-headless-shell (apt-get install chromium-headless-shell), as .ci/run does`,
    );
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
  // Playwright's 30 s for a page or an element: a page the embedded server renders beside the whole suite and
  // a CPU hog took longer, and an import's upload failed on it. A test still fails within its own timeout.
  context.setDefaultTimeout(90_000);
  context.setDefaultNavigationTimeout(90_000);
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
