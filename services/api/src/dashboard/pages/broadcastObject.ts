import type { WireBroadcast } from "../../queries/broadcasts.js";
import type { ApiAnswer } from "../apiCalls.js";
import type { PageResult, SignedIn } from "../dashboard.js";
import { html } from "../html.js";
import { errorNotice } from "../layout.js";
import { broadcastsPath } from "./broadcasts.js";

/** `GET /broadcasts/:id`, as the API writes it: the list item's fields, its content, and its ledger's counts. */
export type BroadcastObject = WireBroadcast;

/** The page for a broadcast the API did not give: another team's is not found, as in the API, since the API is what answers. */
export function broadcastProblem(who: SignedIn, answer: Extract<ApiAnswer<unknown>, { ok: false }>): PageResult {
  const missing = answer.status === 404;
  const title = missing ? "Broadcast not found" : "Broadcast";
  const message = missing ? "There is no broadcast with this id in your team." : "The broadcast could not be loaded.";
  return {
    status: missing ? 404 : answer.status,
    page: who.page(
      title,
      "broadcasts",
      html`<h1>${title}</h1>
        ${errorNotice(message, missing ? undefined : answer.message)}
        <p><a href="${broadcastsPath}">All broadcasts</a></p>`,
    ),
  };
}
