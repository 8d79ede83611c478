import type { TopicSubscription } from "@tidings/domain";
import { escapeHtml } from "@tidings/domain";

/** The small HTML pages behind unsubscribe links: no script, labelled controls, one form. */

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#111}
fieldset{border:1px solid #999;border-radius:.5rem;padding:1rem;margin:1rem 0}
label{display:block;margin:.5rem 0}
button{font:inherit;padding:.5rem 1rem;margin:.25rem .5rem .25rem 0;cursor:pointer}
.quiet{color:#444}
</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

export interface PreferenceTopic {
  id: string;
  name: string;
  description: string | null;
  subscription: TopicSubscription;
}

export function preferencesPage(options: { email: string; unsubscribed: boolean; topics: PreferenceTopic[]; saved?: boolean }): string {
  const topics = options.topics
    .map(
      (topic) =>
        `<label><input type="checkbox" name="topic" value="${escapeHtml(topic.id)}"${topic.subscription === "opt_in" ? " checked" : ""}> ${escapeHtml(topic.name)}` +
        (topic.description ? ` <span class="quiet">— ${escapeHtml(topic.description)}</span>` : "") +
        `</label>`,
    )
    .join("\n");
  const status = options.unsubscribed
    ? `<p role="status">You are unsubscribed from all emails. Saving your preferences subscribes you again.</p>`
    : "";
  const saved = options.saved ? `<p role="status">Your preferences are saved.</p>` : "";
  return page(
    "Email preferences",
    `<p>Choose what <strong>${escapeHtml(options.email)}</strong> receives.</p>
${saved}${status}
<form method="post">
${options.topics.length > 0 ? `<fieldset>\n<legend>Topics</legend>\n${topics}\n</fieldset>` : ""}
<button type="submit" name="action" value="save">Save preferences</button>
<button type="submit" name="action" value="unsubscribe_all">Unsubscribe from everything</button>
</form>`,
  );
}

export function unsubscribedPage(): string {
  return page("You are unsubscribed", `<p>You will not receive these emails any more.</p>`);
}

export function invalidLinkPage(): string {
  return page(
    "This link does not work",
    `<p>The link is incomplete, changed or expired. Open it again from the most recent email you received.</p>`,
  );
}

export function goneContactPage(): string {
  return page("Nothing to manage", `<p>There is no subscription for this link any more.</p>`);
}
