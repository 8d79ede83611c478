import { z } from "zod";
import type { ApiAnswer } from "../apiCalls.js";
import { field, type Dashboard, type FormFields, type SignedIn } from "../dashboard.js";
import { html, type Html } from "../html.js";
import { csrfField, errorNotice, successNotice } from "../layout.js";
import { everyItem } from "../everyItem.js";
import { broadcastProblem, type BroadcastObject } from "./broadcastObject.js";
import { previewQuery, previewSection } from "./broadcastPreview.js";
import { broadcastName, broadcastPath, broadcastsPath } from "./broadcasts.js";

/** The editor's fields, as the form holds them. */
interface DraftFields {
  name: string;
  from: string;
  subject: string;
  reply_to: string;
  segment_id: string;
  topic_id: string;
  preview_text: string;
  html: string;
  text: string;
}

const fieldNames = ["name", "from", "subject", "reply_to", "segment_id", "topic_id", "preview_text", "html", "text"] as const;
const params = z.object({ id: z.guid() });
const editPath = (id: string) => `${broadcastPath(id)}/edit`;

const fieldsOf = (form: FormFields): DraftFields =>
  Object.fromEntries(fieldNames.map((name) => [name, field(form, name)])) as unknown as DraftFields;

const fieldsOfBroadcast = (b: BroadcastObject): DraftFields => ({
  name: b.name ?? "",
  from: b.from ?? "",
  subject: b.subject ?? "",
  reply_to: (b.reply_to ?? []).join(", "),
  segment_id: b.segment_id ?? "",
  topic_id: b.topic_id ?? "",
  preview_text: b.preview_text ?? "",
  html: b.html ?? "",
  text: b.text ?? "",
});

/**
 * The body of `POST`/`PATCH /broadcasts`: an empty field is left out (the API then generates the text from
 * the html), but an empty topic is sent as none, so a draft can lose its topic.
 */
function requestBody(fields: DraftFields) {
  const given = (value: string) => value || undefined;
  const replyTo = fields.reply_to
    .split(",")
    .map((address) => address.trim())
    .filter(Boolean);
  return {
    name: given(fields.name),
    from: given(fields.from),
    subject: given(fields.subject),
    reply_to: replyTo.length > 0 ? replyTo : undefined,
    segment_id: given(fields.segment_id),
    topic_id: fields.topic_id || null,
    preview_text: given(fields.preview_text),
    html: given(fields.html),
    text: given(fields.text),
  };
}

interface Choice {
  id: string;
  name: string;
}

/** A select of the team's segments or topics, from the API; its error in words when it could not answer. */
function choiceField(options: {
  id: string;
  label: string;
  answer: ApiAnswer<{ data: Choice[] }>;
  selected: string;
  none?: string;
  hint: string;
}): Html {
  const { id, label, answer, selected } = options;
  if (!answer.ok) return errorNotice(`The ${label.toLowerCase()}s could not be loaded.`, answer.message);
  return html`<div class="field">
    <label for="${id}">${label}</label>
    <select id="${id}" name="${id}" aria-describedby="${id}_hint" ${options.none === undefined && html` required`}>
      ${options.none === undefined ? html`<option value="">Choose a ${label.toLowerCase()}</option>` : html`<option value="">${options.none}</option>`}
      ${answer.body.data.map((c) => html`<option value="${c.id}" ${c.id === selected && html` selected`}>${c.name}</option>`)}
    </select>
    <p class="muted hint" id="${id}_hint">${options.hint}</p>
  </div>`;
}

const textField = (name: keyof DraftFields, label: string, value: string, extra: Html = html``) =>
  html`<div class="field">
    <label for="draft_${name}">${label}</label><input id="draft_${name}" name="${name}" type="text" value="${value}" ${extra} />
  </div>`;

async function editorForm(who: SignedIn, action: string, values: DraftFields): Promise<Html> {
  const [segments, topics] = await Promise.all([everyItem<Choice>(who, "/segments"), everyItem<Choice>(who, "/topics")]);
  return html`<form method="post" action="${action}" class="panel">
    ${csrfField(who.session.csrfToken)}
    <div class="fields">
      ${textField("name", "Name", values.name, html`maxlength="255"`)}
      ${textField("from", "From", values.from, html`required placeholder="Acme &lt;news@acme.example&gt;"`)}
      ${textField("subject", "Subject", values.subject, html`required`)}
      ${textField("reply_to", "Reply to (optional, comma-separated)", values.reply_to)}
      ${choiceField({
        id: "segment_id",
        label: "Segment",
        answer: segments,
        selected: values.segment_id,
        hint: "Its contacts receive the broadcast, but for the unsubscribed and suppressed.",
      })}
      ${choiceField({
        id: "topic_id",
        label: "Topic",
        answer: topics,
        selected: values.topic_id,
        none: "No topic",
        hint: "With a topic, only the contacts opted in to it receive the broadcast.",
      })}
      ${textField("preview_text", "Preview text (optional)", values.preview_text, html`maxlength="1000"`)}
      <div class="field wide">
        <label for="draft_html">HTML</label>
        <textarea id="draft_html" name="html" rows="12" aria-describedby="draft_html_hint">${values.html}</textarea>
        <p class="muted hint" id="draft_html_hint">
          <code>{{{FIRST_NAME|there}}}</code> or <code>{{{contact.first_name|there}}}</code> puts in each contact's own value;
          <code>{{{SERVICE_UNSUBSCRIBE_URL}}}</code> their unsubscribe link.
        </p>
      </div>
      <div class="field wide">
        <label for="draft_text">Text (optional)</label>
        <textarea id="draft_text" name="text" rows="6" aria-describedby="draft_text_hint">${values.text}</textarea>
        <p class="muted hint" id="draft_text_hint">Left empty, each recipient's text is made from their HTML.</p>
      </div>
      <div class="field"><button type="submit">Save draft</button></div>
    </div>
  </form>`;
}

/** The draft editor: write a new broadcast, or change a draft, and preview it for one of its segment's contacts. */
export function broadcastEditor(dashboard: Dashboard): void {
  const editorPage = async (who: SignedIn, title: string, action: string, values: DraftFields, extra: Html = html``) =>
    who.page(
      title,
      "broadcasts",
      html`<p><a href="${broadcastsPath}">← All broadcasts</a></p>
        <h1>${title}</h1>
        ${await editorForm(who, action, values)} ${extra}`,
    );
  const refused = async (who: SignedIn, title: string, action: string, values: DraftFields, message: string) => ({
    status: 422,
    page: await editorPage(who, title, action, values, errorNotice("The draft was not saved.", message)),
  });

  dashboard.page("/broadcasts/new", {}, async (who) => editorPage(who, "New broadcast", broadcastsPath, fieldsOf({})));

  dashboard.action("/broadcasts", {}, async (who, { form }) => {
    const values = fieldsOf(form);
    const answer = await who.api.send<{ id: string }>("POST", "/broadcasts", requestBody(values));
    if (!answer.ok) return refused(who, "New broadcast", broadcastsPath, values, answer.message);
    who.flash(successNotice("The draft is saved. Preview it for a contact below, then send or schedule it from its page."));
    return { redirect: editPath(answer.body.id) };
  });

  dashboard.page("/broadcasts/:id/edit", { params, querystring: previewQuery }, async (who, { params: { id }, query }) => {
    const answer = await who.api.get<BroadcastObject>(`/broadcasts/${id}`);
    if (!answer.ok) return broadcastProblem(who, answer);
    const b = answer.body;
    if (b.status !== "draft") {
      who.flash(errorNotice(`This broadcast is ${b.status}: only a draft can be changed.`));
      return { redirect: broadcastPath(id) };
    }
    const title = `Edit “${broadcastName(b)}”`;
    const next = html`<p><a class="button" href="${broadcastPath(id)}">Send or schedule this draft</a></p>
      ${await previewSection(who, b, editPath(id), query.contact)}`;
    return editorPage(who, title, broadcastPath(id), fieldsOfBroadcast(b), next);
  });

  dashboard.action("/broadcasts/:id", { params }, async (who, { params: { id }, form }) => {
    const values = fieldsOf(form);
    const answer = await who.api.send("PATCH", `/broadcasts/${id}`, requestBody(values));
    if (!answer.ok && answer.status === 404) return broadcastProblem(who, answer);
    if (!answer.ok) return refused(who, "Edit the draft", broadcastPath(id), values, answer.message);
    who.flash(successNotice("The draft is saved."));
    return { redirect: editPath(id) };
  });
}
