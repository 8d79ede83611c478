import { z } from "zod";
import { field, type Dashboard } from "../dashboard.js";
import { html } from "../html.js";
import { csrfField, errorNotice, successNotice, timestamp } from "../layout.js";
import { confirmedButton } from "../lists.js";
import { pagedList } from "../pagedList.js";
import { cursorQuery } from "../pagination.js";
import { audiencePage, audiencePath } from "./audienceTabs.js";

interface SegmentItem {
  id: string;
  name: string;
  created_at: string;
}

const path = `${audiencePath}/segments`;

/** Segments: the list, a page at a time; create one; delete one (its contacts stay, outside it). */
export function segmentPages(dashboard: Dashboard): void {
  dashboard.page("/audience/segments", { querystring: z.object(cursorQuery) }, async (who, { query }) => {
    const csrfToken = who.session.csrfToken;
    const row = (s: SegmentItem) => [
      s.name,
      timestamp(s.created_at),
      confirmedButton({
        action: `${path}/${s.id}/delete`,
        csrfToken,
        label: "Delete",
        name: s.name,
        question: `Delete the segment “${s.name}”? Its contacts stay, outside it.`,
      }),
    ];
    return audiencePage(
      who,
      "Segments",
      "segments",
      html`<form method="post" action="${path}" class="panel">
          ${csrfField(csrfToken)}
          <div class="fields">
            <div class="field">
              <label for="segment_name">Name</label><input id="segment_name" name="name" type="text" required maxlength="255" />
            </div>
            <div class="field"><button type="submit">Create segment</button></div>
          </div>
        </form>
        ${await pagedList(who, query, {
          api: { path: "/segments" },
          page: { path },
          what: "The segments",
          empty: "No segments yet.",
          caption: "Segments, newest first",
          columns: ["Name", "Created", ""],
          row,
        })}`,
    );
  });

  dashboard.action("/audience/segments", {}, async (who, { form }) => {
    const name = field(form, "name");
    const answer = await who.api.send("POST", "/segments", { name });
    who.flash(answer.ok ? successNotice(html`Segment “${name}” created.`) : errorNotice("The segment was not created.", answer.message));
    return { redirect: path };
  });

  dashboard.action("/audience/segments/:id/delete", { params: z.object({ id: z.guid() }) }, async (who, { params }) => {
    const answer = await who.api.send("DELETE", `/segments/${params.id}`);
    who.flash(answer.ok ? successNotice("The segment was deleted.") : errorNotice("The segment was not deleted.", answer.message));
    return { redirect: path };
  });
}
