import { sharedFrameCsp, sharedFrameDocument } from "../shares/sharedEmailPage.js";
import type { PageResult } from "./dashboard.js";
import { Html, html } from "./html.js";

/**
 * Another party's html (an email's body, a template), shown in a frame the browser sandboxes twice: the
 * frame's `sandbox=""` and its document's CSP `sandbox`. No scripts, an opaque origin, no forms, and
 * nothing fetched from the network, so opening it here tells its sender nothing.
 */
export const sandboxedFrame = (src: string, title: string) =>
  html`<iframe class="preview" sandbox="" referrerpolicy="no-referrer" src="${src}" title="${title}"></iframe>`;

const headers = { "content-security-policy": sharedFrameCsp, "x-frame-options": "SAMEORIGIN" };

/** The frame's document: the html, else the text, as written. */
export const frameDocument = (content: { html: string | null; text: string | null }): PageResult => ({
  status: 200,
  page: new Html(sharedFrameDocument(content)),
  headers,
});

/** The frame's document when there is nothing to show: why, in words, with the same sandbox. */
export const frameProblem = (status: number, message: string): PageResult => ({
  status,
  page: html`<!doctype html>
    <p>${message}</p>`,
  headers,
});
