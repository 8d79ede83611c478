import { z } from "zod";
import type { Dashboard } from "../dashboard.js";
import { badge, progressTone } from "../badges.js";
import { html } from "../html.js";
import { timestamp } from "../layout.js";
import { dataTable } from "../lists.js";
import { automationsPath, runStatus, type RunItem } from "./automations.js";
import { emailPath } from "./emails.js";
import { unreadable } from "./notFound.js";

interface RunStep {
  key: string;
  type: string;
  status: string;
  output: Record<string, unknown> | null;
  error: string | null;
  started_at: string | null;
  completed_at: string | null;
}

interface RunObject extends RunItem {
  steps: RunStep[];
}

/** A step's output, one value a line; an email it sent links to the email's page. */
const output = (values: Record<string, unknown>) =>
  Object.entries(values).map(([key, value]) => {
    const text = typeof value === "string" ? value : JSON.stringify(value);
    const shown = key === "email_id" && typeof value === "string" ? html`<a href="${emailPath(value)}">${text}</a>` : text;
    return html`<span class="muted">${key.replaceAll("_", " ")}</span> <span class="mono">${shown}</span><br />`;
  });

/** What a step gave, or why it failed: an error first, as it is what a person looks for. */
const outcome = (s: RunStep) => (s.error ? html`<span class="mono">${s.error}</span>` : s.output && output(s.output));

const stepRow = (s: RunStep) => [
  html`<span class="mono">${s.key}</span>`,
  s.type.replaceAll("_", " "),
  badge(s.status, progressTone(s.status)),
  timestamp(s.started_at),
  timestamp(s.completed_at),
  outcome(s),
];

/** One run of an automation: each step of its graph with its status, its times, and what it gave or why it failed. */
export function automationRunPage(dashboard: Dashboard): void {
  const params = z.object({ id: z.guid(), runId: z.guid() });
  dashboard.page("/automations/:id/runs/:runId", { params }, async (who, { params: { id, runId } }) => {
    const answer = await who.api.get<RunObject>(`/automations/${id}/runs/${runId}`);
    const back = { href: `${automationsPath}/${id}`, label: "The automation's runs" };
    if (!answer.ok)
      return unreadable(who, answer, { what: "Run", notFound: "There is no such run in your team.", active: "automations", back });
    const r = answer.body;
    return who.page(
      "Run",
      "automations",
      html`<p><a href="${back.href}">← ${back.label}</a></p>
        <h1>Run ${runStatus(r.status)}</h1>
        <section class="panel" aria-label="Summary">
          <dl class="facts">
            <dt>Started</dt>
            <dd>${timestamp(r.started_at)}</dd>
            <dt>Ended</dt>
            <dd>${timestamp(r.completed_at)}</dd>
            <dt>Id</dt>
            <dd><code>${r.id}</code></dd>
          </dl>
        </section>
        <h2>Steps</h2>
        ${dataTable("The run's steps, in the order of the automation", ["Step", "Type", "Status", "Started", "Ended", "Outcome"], r.steps.map(stepRow))}`,
    );
  });
}
