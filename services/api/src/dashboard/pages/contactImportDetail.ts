import { z } from "zod";
import type { Dashboard } from "../dashboard.js";
import { html } from "../html.js";
import { emptyState, timestamp } from "../layout.js";
import { dataTable } from "../lists.js";
import { importStatus, importsPath, type ImportItem } from "./contactImports.js";
import { unreadable } from "./notFound.js";

interface ImportObject extends ImportItem {
  errors: { line: number; reason: string }[];
}

/** How often the page of a running import reloads itself (script.ts). */
const refreshSeconds = 2;

const counts = (i: ImportItem) =>
  html`<dl class="facts">
    <dt>Rows done</dt>
    <dd>${i.counts.total}</dd>
    <dt>Created</dt>
    <dd>${i.counts.created}</dd>
    <dt>Updated</dt>
    <dd>${i.counts.updated}</dd>
    <dt>Skipped</dt>
    <dd>${i.counts.skipped}</dd>
    <dt>Failed</dt>
    <dd>${i.counts.failed}</dd>
    <dt>Started</dt>
    <dd>${timestamp(i.created_at)}</dd>
    <dt>Ended</dt>
    <dd>${timestamp(i.completed_at)}</dd>
  </dl>`;

/**
 * One import: its counts as they grow, and the rows that failed with their line and why. While it runs,
 * the page reloads itself (the CSP allows the script no request of its own) and says so; without the
 * script, a link reloads it.
 */
export function contactImportDetailPage(dashboard: Dashboard): void {
  dashboard.page("/audience/imports/:id", { params: z.object({ id: z.guid() }) }, async (who, { params }) => {
    const answer = await who.api.get<ImportObject>(`/contacts/imports/${params.id}`);
    const back = { href: importsPath, label: "All imports" };
    if (!answer.ok)
      return unreadable(who, answer, {
        what: "Import",
        notFound: "There is no import with this id in your team.",
        active: "audience",
        back,
      });
    const i = answer.body;
    const running = i.status === "queued" || i.status === "in_progress";
    const errors = i.errors.map((e) => [e.line, e.reason]);
    return who.page(
      "Import",
      "audience",
      html`<p><a href="${back.href}">← ${back.label}</a></p>
        <h1>Import ${importStatus(i.status)}</h1>
        <section class="panel" aria-label="Progress" ${running ? html`data-refresh="${refreshSeconds}"` : ""}>
          ${
            running &&
            html`<p>
              <progress aria-label="Import in progress"></progress><br />
              <span class="muted">This page reloads every ${refreshSeconds} seconds until the import ends.</span>
              <a href="${importsPath}/${i.id}">Reload now</a>
            </p>`
          }
          ${counts(i)}
        </section>
        <h2>Rows that failed</h2>
        ${
          errors.length === 0
            ? emptyState(running ? "No row has failed so far." : "No row failed.")
            : html`<p class="muted">The first 100 rows that failed, with their line in the file.</p>
                ${dataTable("Rows that failed", ["Line", "Reason"], errors)}`
        }`,
    );
  });
}
