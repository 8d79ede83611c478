import { html, type Html, type HtmlValue } from "./html.js";
import { dashboardAssets } from "./assets.js";
import { dashboardPath } from "./sessionCookie.js";

/** The pages in the navigation, in its order; `key` is what a page passes as `active`. */
export const navigation = [
  { key: "overview", label: "Overview", href: dashboardPath },
  { key: "emails", label: "Emails", href: `${dashboardPath}/emails` },
  { key: "broadcasts", label: "Broadcasts", href: `${dashboardPath}/broadcasts` },
  { key: "audience", label: "Audience", href: `${dashboardPath}/audience` },
  { key: "automations", label: "Automations", href: `${dashboardPath}/automations` },
  { key: "domains", label: "Domains", href: `${dashboardPath}/domains` },
  { key: "webhooks", label: "Webhooks", href: `${dashboardPath}/webhooks` },
  { key: "templates", label: "Templates", href: `${dashboardPath}/templates` },
  { key: "api-keys", label: "API keys", href: `${dashboardPath}/api-keys` },
  { key: "suppressions", label: "Suppressions", href: `${dashboardPath}/suppressions` },
  { key: "logs", label: "Logs", href: `${dashboardPath}/logs` },
] as const;

export type NavigationKey = (typeof navigation)[number]["key"];

export interface PageOptions {
  title: string;
  body: HtmlValue;
  /** The signed-in person's page: navigation, and a sign-out form carrying the session's CSRF token. */
  signedIn?: { active: NavigationKey | undefined; csrfToken: string };
}

/** Every page: the same head (the one style sheet and script), a skip link, the navigation, the page's own `main`. */
export function layout(options: PageOptions): Html {
  const nav = options.signedIn;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>${options.title} · Tidings</title>
        <link rel="stylesheet" href="${dashboardAssets.css.href}" />
        <script src="${dashboardAssets.js.href}" defer></script>
      </head>
      <body>
        <a class="skip" href="#content">Skip to content</a>
        <header class="top">
          <a class="brand" href="${dashboardPath}">Tidings</a>
          ${
            nav &&
            html`<nav class="main" aria-label="Dashboard">
                <ul>
                  ${navigation.map(
                    (item) =>
                      html`<li><a href="${item.href}" ${item.key === nav.active ? html` aria-current="page"` : ""}>${item.label}</a></li>`,
                  )}
                </ul>
              </nav>
              <form method="post" action="${dashboardPath}/sign-out">
                ${csrfField(nav.csrfToken)}<button class="secondary small" type="submit">Sign out</button>
              </form>`
          }
        </header>
        <main id="content" tabindex="-1">${options.body}</main>
      </body>
    </html> `;
}

/** The hidden field every state-changing form carries (csrf.ts). */
export const csrfField = (token: string) => html`<input type="hidden" name="csrf_token" value="${token}" />`;

/** An error in words, announced to screen readers. */
export const errorNotice = (message: string, detail?: string) =>
  html`<div class="notice error" role="alert">
    <p><strong>${message}</strong></p>
    ${detail && html`<p>${detail}</p>`}
  </div>`;

/** What just happened (the result of a form), announced politely. */
export const successNotice = (message: HtmlValue) => html`<div class="notice success" role="status"><p>${message}</p></div>`;

/**
 * A secret shown once, on the page after the form that made it (an API key's token, a signing secret, a
 * share link), with a button that copies it: no page of the dashboard shows it again.
 */
export const shownOnce = (id: string, value: string, copyLabel: string) =>
  html`<span class="token"
    ><code id="${id}">${value}</code> <button class="small" type="button" data-copy="${value}">${copyLabel}</button></span
  >`;

/** A list with nothing in it says so, and what would put something there. */
export const emptyState = (message: HtmlValue) => html`<p class="empty">${message}</p>`;

/** `2026-11-23 10:00:00.123456+00` (the API's timestamps) → `2026-11-23 10:00:00 UTC` in a `<time>`. */
export function timestamp(wire: string | null | undefined): Html {
  if (!wire) return html`<span class="muted">—</span>`;
  const iso = `${wire.slice(0, 10)}T${wire.slice(11, 19)}Z`;
  return html`<time datetime="${iso}">${wire.slice(0, 19).replace("T", " ")} UTC</time>`;
}
