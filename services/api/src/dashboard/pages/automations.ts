import { z } from "zod";
import type { Dashboard } from "../dashboard.js";
import { badge, progressTone } from "../badges.js";
import { html } from "../html.js";
import { timestamp } from "../layout.js";
import { pagedList } from "../pagedList.js";
import { cursorQuery } from "../pagination.js";
import { dashboardPath } from "../sessionCookie.js";
import { unreadable } from "./notFound.js";

interface AutomationItem {
  id: string;
  name: string;
  status: "enabled" | "disabled";
  created_at: string;
  updated_at: string | null;
  trigger_event: string | null;
}

interface AutomationObject extends Omit<AutomationItem, "trigger_event"> {
  steps: { key: string; type: string; config: Record<string, unknown> }[];
}

/** An item of `GET /automations/:id/runs`. */
export interface RunItem {
  id: string;
  status: string;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
}

export const automationsPath = `${dashboardPath}/automations`;
export const runStatus = (status: string) => badge(status, progressTone(status));
const automationStatus = (status: AutomationItem["status"]) => badge(status, status === "enabled" ? "ok" : undefined);
const eventName = (name: string | null | undefined) =>
  name ? html`<span class="mono">${name}</span>` : html`<span class="muted">—</span>`;

const automationRow = (a: AutomationItem) => [
  html`<a href="${automationsPath}/${a.id}">${a.name}</a>`,
  automationStatus(a.status),
  eventName(a.trigger_event),
  timestamp(a.updated_at ?? a.created_at),
];

const runRow = (automationId: string) => (r: RunItem) => [
  html`<a href="${automationsPath}/${automationId}/runs/${r.id}">${timestamp(r.created_at)}</a>`,
  runStatus(r.status),
  timestamp(r.started_at),
  timestamp(r.completed_at),
];

/** Automations, a page at a time, and one automation with its runs, newest first, a page at a time. */
export function automationPages(dashboard: Dashboard): void {
  dashboard.page("/automations", { querystring: z.object(cursorQuery) }, async (who, { query }) => {
    const title = "Automations";
    const list = await pagedList(who, query, {
      api: { path: "/automations" },
      page: { path: automationsPath },
      what: "The automations",
      empty: html`No automations yet. Create one with <code>POST /automations</code>.`,
      caption: "Automations, newest first",
      columns: ["Name", "Status", "Started by the event", "Changed"],
      row: automationRow,
    });
    return who.page(
      title,
      "automations",
      html`<h1>${title}</h1>
        ${list}`,
    );
  });

  dashboard.page("/automations/:id", { params: z.object({ id: z.guid() }), querystring: z.object(cursorQuery) }, async (who, input) => {
    const { id } = input.params;
    const [automation, runs] = await Promise.all([
      who.api.get<AutomationObject>(`/automations/${id}`),
      pagedList(who, input.query, {
        api: { path: `/automations/${id}/runs` },
        page: { path: `${automationsPath}/${id}` },
        what: "The runs",
        empty: "No runs yet: a run starts when the trigger's event arrives for a contact.",
        caption: "Runs, newest first",
        columns: ["Run", "Status", "Started", "Ended"],
        row: runRow(id),
      }),
    ]);
    const back = { href: automationsPath, label: "All automations" };
    if (!automation.ok)
      return unreadable(who, automation, {
        what: "Automation",
        notFound: "There is no automation with this id in your team.",
        active: "automations",
        back,
      });
    const a = automation.body;
    const trigger = a.steps.find((s) => s.type === "trigger")?.config.event_name;
    return who.page(
      a.name,
      "automations",
      html`<p><a href="${back.href}">← ${back.label}</a></p>
        <h1>${a.name} ${automationStatus(a.status)}</h1>
        <section class="panel" aria-label="Summary">
          <dl class="facts">
            <dt>Started by the event</dt>
            <dd>${eventName(typeof trigger === "string" ? trigger : undefined)}</dd>
            <dt>Steps</dt>
            <dd>${a.steps.map((s) => `${s.key} (${s.type.replaceAll("_", " ")})`).join(", ")}</dd>
            <dt>Created</dt>
            <dd>${timestamp(a.created_at)}</dd>
            <dt>Changed</dt>
            <dd>${timestamp(a.updated_at)}</dd>
          </dl>
        </section>
        <h2>Runs</h2>
        ${runs}`,
    );
  });
}
