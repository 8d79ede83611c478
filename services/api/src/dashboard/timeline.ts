import { html, type Html } from "./html.js";
import { timestamp } from "./layout.js";

/** One event of the audit API (`GET /audit/streams/:stream`), as the dashboard reads it. */
export interface AuditEventItem {
  id: string;
  type: string;
  occurred_at: string | null;
  created_at: string;
  data: unknown;
}

type Tone = "ok" | "bad" | undefined;

/** What each of an email's events says to a person: a label, what the remote server replied, how it went. */
function describe(event: AuditEventItem): { label: string; detail: string | undefined; tone: Tone } {
  const data = (event.data ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  const reply = text(data.response);
  switch (event.type) {
    case "EmailQueued":
      return { label: "Queued", detail: undefined, tone: undefined };
    case "EmailScheduled":
      return { label: "Scheduled", detail: text(data.scheduledAt) && `for ${text(data.scheduledAt)}`, tone: undefined };
    case "EmailRescheduled":
      return { label: "Rescheduled", detail: text(data.scheduledAt) && `for ${text(data.scheduledAt)}`, tone: undefined };
    case "EmailSent":
      return { label: "Sent", detail: undefined, tone: undefined };
    case "EmailDelivered":
      return { label: "Delivered", detail: reply, tone: "ok" };
    case "EmailDeliveryDelayed":
      return { label: `Delivery delayed (attempt ${String(data.attempt ?? "?")})`, detail: reply, tone: "bad" };
    case "EmailBounced": {
      const bounce = (data.bounce ?? {}) as { type?: unknown; message?: unknown };
      return {
        label: `Bounced (${String(bounce.type ?? "unknown")})`,
        detail: [text(bounce.message), reply].filter(Boolean).join(" — "),
        tone: "bad",
      };
    }
    case "EmailFailed":
      return { label: "Failed", detail: [text(data.reason), reply].filter(Boolean).join(" — "), tone: "bad" };
    case "EmailSuppressed":
      return { label: "Suppressed", detail: text(data.reason)?.replace("_", " "), tone: "bad" };
    case "EmailCanceled":
      return { label: "Canceled", detail: undefined, tone: undefined };
    case "EmailOpened":
      return { label: data.machine ? "Opened (by a machine)" : "Opened", detail: undefined, tone: "ok" };
    case "EmailClicked":
      return { label: data.machine ? "Clicked (by a machine)" : "Clicked", detail: text(data.link), tone: "ok" };
    case "EmailComplained":
      return { label: "Marked as spam", detail: text(data.feedbackType), tone: "bad" };
    default:
      return { label: event.type.replace(/^Email/, "").replace(/([a-z])([A-Z])/g, "$1 $2"), detail: undefined, tone: undefined };
  }
}

function timelineItem(event: AuditEventItem): Html {
  const { label, detail, tone } = describe(event);
  return html`<li${tone ? html` class="${tone}"` : ""}><strong>${label}</strong> <span class="muted">${timestamp(event.occurred_at ?? event.created_at)}</span>
${detail && html`<br /><span class="mono">${detail}</span>`}</li>`;
}

/**
 * A page of the events oldest first, as a list a screen reader reads in order. A page that does not reach
 * `first`, the email's first event (queued or scheduled), begins with it all the same, and a gap that says
 * where the events between are: where the email came from stays in view however many opens followed.
 */
export function timeline(eventsNewestFirst: readonly AuditEventItem[], first?: AuditEventItem): Html {
  const events = [...eventsNewestFirst].reverse();
  const start =
    first !== undefined &&
    !events.some((event) => event.id === first.id) &&
    html`${timelineItem(first)}
      <li class="gap">Events between are on the older pages.</li>`;
  return html`<ol class="timeline">
    ${start}${events.map(timelineItem)}
  </ol>`;
}
