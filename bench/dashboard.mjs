// The dashboard's Overview and Emails pages in a browser with 100,000 emails stored (issue #24: each shows its
// content within 1 s). A throw-away PostgreSQL database gets BENCH_EMAILS emails (default 100,000) of one team
// from 5 domains over the last 30 days (support/sentEmails.mjs: statuses, recipients, subjects, broadcasts), in
// the emails read model and the email metrics read model as the projections would leave them: written
// straight into their tables by SQL, since projecting 100,000 emails' events would measure the projector, not
// the pages. The whole app then serves on a loopback port, and headless Chromium (playwright-core,
// /usr/bin/chromium) signs in and loads, in rounds of one load each so that a burst of load on the shared
// machine falls on every page alike, BENCH_LOADS rounds (default 30) after BENCH_WARMUP unmeasured ones
// (default 3):
//   floor          /dashboard/api-keys, a list of one key: the same stack (session, in-process API call,
//                  layout, style sheet, script) with nothing to read;
//   overview       /dashboard, until its charts show their bars (`GET /emails/metrics` by day over 7 days);
//   emails         /dashboard/emails, until its rows show;
//   emails_search  the same, searching one recipient's whole address (about 5 emails of 100,000 match, so
//                  the search cannot stop early);
//   emails_status  the same, filtered to bounced (2 % of the emails);
//   emails_page2   the first page, then its "Older →" link, timed from the click's navigation.
// A load's time runs from its navigation's start (the document's time origin) to the first frame drawn
// with the content in it: an init script notes, from a MutationObserver, the first animation frame after
// the content's element (`.charts svg rect`, `table tbody tr`) joined the document, and the time taken is
// the later of that and the first contentful paint, as a frame is drawn only once the style sheet is in.
// The content is there when the HTML is, as the pages are rendered on the server; `ttfb` is when its first
// byte came, most of which is the server's work. Each page's line has its median, 95th percentile and
// worst, with the 1-minute load average before and after (the machine is shared); a last line has the
// process's peak resident set (VmHWM: the API, its database pool, the bench; Chromium is apart).
// Runs the built packages: `npx tsc -b && node bench/dashboard.mjs`. One JSON line per page.
import { existsSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { sql } from "kysely";
import { chromium } from "playwright-core";
import { withServedTeam } from "./support/inProcessApi.mjs";
import { drawSentEmails, writeEmailMetrics, writeEmailRows } from "./support/sentEmails.mjs";
import { undoOnExit } from "./support/teardown.mjs";

const emails = Number(process.env.BENCH_EMAILS ?? 100_000);
const loads = Number(process.env.BENCH_LOADS ?? 30);
const warmup = Number(process.env.BENCH_WARMUP ?? 3);
const DAYS = 30;
const chromiumPath = "/usr/bin/chromium";
const charts = ".charts svg rect";
const rows = "table tbody tr";

/** Both read models' rows of the emails, written on one connection: the drawing's temporary tables are its own. */
async function fill(db, teamId, domains) {
  const started = performance.now();
  await db.connection().execute(async (connection) => {
    await drawSentEmails(connection, { emails, days: DAYS, domainIds: domains.map((d) => d.id) });
    await writeEmailMetrics(connection, teamId);
    await writeEmailRows(connection, teamId, domains, emails);
  });
  await sql`ANALYZE`.execute(db);
  const stored = Number((await sql`SELECT count(*)::int AS n FROM emails`.execute(db)).rows[0].n);
  if (stored !== emails) throw new Error(`the emails read model holds ${stored} emails, not ${emails}`);
  return { fill_s: Number(((performance.now() - started) / 1000).toFixed(1)) };
}

/* global window, document, requestAnimationFrame, MutationObserver -- noteContent and contentTimes' callback run in the page */

/** In every document: the time of the first animation frame after an element matching each selector appeared. */
function noteContent(selectors) {
  const seen = {};
  window.__contentFrameAt = seen;
  const look = () => {
    for (const selector of selectors)
      if (!(selector in seen) && document.querySelector(selector)) {
        seen[selector] = null;
        requestAnimationFrame((frameAt) => (seen[selector] = frameAt));
      }
  };
  new MutationObserver(look).observe(document, { childList: true, subtree: true });
}

/** The current document's times, in ms from its navigation's start, once its `selector` content has been drawn. */
async function contentTimes(page, selector) {
  await page.locator(`${selector}, .notice.error`).first().waitFor({ state: "visible" });
  const failed = page.locator(".notice.error");
  if (await failed.count()) throw new Error(`${page.url()} says: ${await failed.first().innerText()}`);
  return page.evaluate(async (selector) => {
    const seen = window.__contentFrameAt;
    while (typeof seen[selector] !== "number") await new Promise(requestAnimationFrame);
    const paint = performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? 0;
    const navigation = performance.getEntriesByType("navigation")[0];
    return { content: Math.max(seen[selector], paint), ttfb: navigation.responseStart };
  }, selector);
}

/** A page as a person opens it: by its address, or from another through a link. */
function pages(base, search) {
  const open = (path, selector) => async (page) => {
    await page.goto(`${base}${path}`, { waitUntil: "commit" });
    return contentTimes(page, selector);
  };
  return {
    floor: open("/dashboard/api-keys", rows),
    overview: open("/dashboard", charts),
    emails: open("/dashboard/emails", rows),
    emails_search: open(`/dashboard/emails?search=${encodeURIComponent(search)}`, rows),
    emails_status: open("/dashboard/emails?status=bounced", rows),
    async emails_page2(page) {
      await open("/dashboard/emails", rows)(page);
      await Promise.all([page.waitForURL(/after=/, { waitUntil: "commit" }), page.getByRole("link", { name: "Older →" }).click()]);
      return contentTimes(page, rows);
    },
  };
}

const ms = (value) => Number(value.toFixed(1));

/** The median, 95th percentile and worst of `values`. */
function spread(values, name) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { [`${name}_p50_ms`]: ms(at(0.5)), [`${name}_p95_ms`]: ms(at(0.95)), [`${name}_max_ms`]: ms(sorted.at(-1)) };
}

const peakRssMb = () => Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))[1]) / 1024);

if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: install Debian's chromium (apt-get install chromium)`);

const domainNames = ["acme.example", "mail.acme.example", "news.acme.example", "acme-shop.example", "acme.test"];
await withServedTeam("dashboard", domainNames, async ({ base, key, domains, db, stops }) => {
  const filled = await fill(db, key.teamId, domains);
  const { rows: picked } = await sql`SELECT to_addresses->>0 AS recipient FROM emails ORDER BY created_at LIMIT 1`.execute(db);
  const search = picked[0].recipient;
  const { rows: matching } = await sql`SELECT count(*)::int AS n FROM emails WHERE to_addresses->>0 = ${search}`.execute(db);

  const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
  const closeBrowser = undoOnExit("the browser", () => browser.close());
  stops.push(closeBrowser);
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.addInitScript(noteContent, [charts, rows]);
  await page.goto(`${base}/dashboard`);
  await page.getByLabel("Full-access API key").fill(key.token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Overview" }).waitFor();

  const measured = Object.entries(pages(base, search));
  const times = Object.fromEntries(measured.map(([name]) => [name, { content: [], ttfb: [] }]));
  const loadBefore = loadavg()[0];
  for (let round = 0; round < warmup + loads; round++)
    for (const [name, load] of measured) {
      const took = await load(page);
      if (round < warmup) continue;
      times[name].content.push(took.content);
      times[name].ttfb.push(took.ttfb);
    }
  const loadAfter = loadavg()[0];
  for (const [name] of measured)
    console.log(
      JSON.stringify({
        bench: "dashboard",
        page: name,
        emails,
        loads,
        ...spread(times[name].content, "content"),
        ...spread(times[name].ttfb, "ttfb"),
        ...(name === "emails_search" && { search_matches: matching[0].n }),
        load_1m_before: Number(loadBefore.toFixed(2)),
        load_1m_after: Number(loadAfter.toFixed(2)),
      }),
    );
  console.log(JSON.stringify({ bench: "dashboard", process: "api and bench", emails, ...filled, vmhwm_mb: peakRssMb() }));
});
