import { z } from "zod";
import { field, type Dashboard } from "../dashboard.js";
import { badge, progressTone } from "../badges.js";
import { html } from "../html.js";
import { csrfField, errorNotice, successNotice, timestamp } from "../layout.js";
import { pagedList } from "../pagedList.js";
import { cursorQuery } from "../pagination.js";
import { audiencePage, audiencePath } from "./audienceTabs.js";

/** An item of `GET /contacts/imports`. */
export interface ImportItem {
  id: string;
  status: "queued" | "in_progress" | "completed" | "failed";
  created_at: string;
  completed_at: string | null;
  counts: { total: number; created: number; updated: number; skipped: number; failed: number };
}

export const importsPath = `${audiencePath}/imports`;
export const importStatus = (status: ImportItem["status"]) => badge(status, progressTone(status));

const row = (i: ImportItem) => [
  html`<a href="${importsPath}/${i.id}">${timestamp(i.created_at)}</a>`,
  importStatus(i.status),
  i.counts.total,
  i.counts.created,
  i.counts.updated,
  i.counts.failed,
];

/**
 * CSV imports: a form that uploads a file to `POST /contacts/imports` (streamed through, never held
 * whole), and the imports, a page at a time.
 */
export function contactImportPages(dashboard: Dashboard): void {
  dashboard.page("/audience/imports", { querystring: z.object(cursorQuery) }, async (who, { query }) => {
    const list = await pagedList(who, query, {
      api: { path: "/contacts/imports" },
      page: { path: importsPath },
      what: "The imports",
      empty: "No imports yet.",
      caption: "Imports, newest first",
      columns: ["Started", "Status", "Rows done", "Created", "Updated", "Failed"],
      row,
    });
    return audiencePage(
      who,
      "Imports",
      "imports",
      html`<form method="post" action="${importsPath}" enctype="multipart/form-data" class="panel">
          <h2>Import contacts from a CSV file</h2>
          <p class="muted" id="csv_help">
            The first row names the columns: <code>email</code> (required), <code>first_name</code>, <code>last_name</code>,
            <code>unsubscribed</code>.
          </p>
          ${csrfField(who.session.csrfToken)}
          <div class="fields">
            <div class="field">
              <label for="import_conflict">A contact that exists already</label>
              <select id="import_conflict" name="on_conflict">
                <option value="upsert">Update it</option>
                <option value="skip">Leave it as it is</option>
              </select>
            </div>
            <div class="field">
              <label for="import_file">CSV file</label>
              <input id="import_file" name="file" type="file" accept=".csv,text/csv" required aria-describedby="csv_help" />
            </div>
            <div class="field"><button type="submit">Start import</button></div>
          </div>
        </form>
        ${list}`,
    );
  });

  dashboard.upload("/audience/imports", {}, async (who, { form, file }) => {
    if (!file?.filename) {
      who.flash(errorNotice("No import was started.", "Choose a CSV file to import."));
      return { redirect: importsPath };
    }
    const answer = await who.api.upload<{ id: string }>("/contacts/imports", { on_conflict: field(form, "on_conflict") || "upsert" }, file);
    if (!answer.ok) {
      who.flash(errorNotice("No import was started.", answer.message));
      return { redirect: importsPath };
    }
    who.flash(successNotice(html`The import of ${file.filename} has started.`));
    return { redirect: `${importsPath}/${answer.body.id}` };
  });
}
