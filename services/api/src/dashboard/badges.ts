import { html } from "./html.js";

/** How a status went: good (green), bad (red), or still going (amber); the words alone carry the meaning. */
export type Tone = "ok" | "bad" | "wait";

/** A status as a badge whose colour agrees with its words. */
export const badge = (status: string, tone?: Tone) =>
  html`<span class="badge${tone ? ` ${tone}` : ""}">${status.replaceAll("_", " ")}</span>`;

/** The tone of the statuses of things that run to an end: imports, automation runs and their steps. */
export function progressTone(status: string): Tone | undefined {
  if (status === "completed") return "ok";
  if (status === "failed" || status === "cancelled") return "bad";
  if (status === "queued" || status === "in_progress" || status === "running" || status === "waiting") return "wait";
  return undefined;
}
