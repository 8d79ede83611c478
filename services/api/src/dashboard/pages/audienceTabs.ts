import type { SignedIn } from "../dashboard.js";
import { html, type Html, type HtmlValue } from "../html.js";
import { dashboardPath } from "../sessionCookie.js";

export const audiencePath = `${dashboardPath}/audience`;

const tabs = [
  { key: "contacts", label: "Contacts", href: audiencePath },
  { key: "segments", label: "Segments", href: `${audiencePath}/segments` },
  { key: "topics", label: "Topics", href: `${audiencePath}/topics` },
  { key: "properties", label: "Properties", href: `${audiencePath}/properties` },
  { key: "imports", label: "Imports", href: `${audiencePath}/imports` },
] as const;

export type AudienceTab = (typeof tabs)[number]["key"];

/** The Audience pages' own navigation: links, so each list has an address to share and go back to. */
function audienceTabs(active: AudienceTab): Html {
  return html`<nav class="tabs" aria-label="Audience">
    <ul>
      ${tabs.map((tab) => html`<li><a href="${tab.href}" ${tab.key === active ? html` aria-current="page"` : ""}>${tab.label}</a></li>`)}
    </ul>
  </nav>`;
}

/** A list of the Audience section: the tabs, the list's heading, and the page's own body. */
export function audiencePage(who: SignedIn, title: string, tab: AudienceTab, body: HtmlValue): Html {
  return who.page(
    title,
    "audience",
    html`${audienceTabs(tab)}
      <h1>${title}</h1>
      ${body}`,
  );
}
