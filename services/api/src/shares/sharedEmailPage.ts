import { createHash } from "node:crypto";
import type { FastifyReply } from "fastify";
import type { SharedEmailAnswer, SharedMessage } from "./sharedEmailContent.js";
import { escapeHtml } from "@tidings/domain";

/**
 * The page behind a share link, and the frame that shows the email's body. The page is ours and runs no
 * script at all; the body is someone else's html, so it is served as a separate response that the
 * browser sandboxes (CSP `sandbox`: no scripts, an opaque origin, no forms) and that may load nothing from
 * the network: a remote image would tell its sender who opened the link, and when.
 */

const style = `:root{color-scheme:light dark}
body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:1.5rem auto;padding:0 1rem}
h1{font-size:1.4rem;margin:.5rem 0 1rem;overflow-wrap:anywhere}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0 0 1rem}
dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
iframe{display:block;width:100%;height:70vh;border:1px solid #8888;border-radius:.5rem;background:#fff}
.quiet{opacity:.75;font-size:.9rem}`;

/** The page's only inline code is its style sheet, allowed by its hash: no `unsafe-inline`, and no script of any kind. */
const styleHash = createHash("sha256").update(style).digest("base64");

export const sharedPageCsp = [
  "default-src 'none'",
  `style-src 'sha256-${styleHash}'`,
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The email's own styles may be inline; scripts, forms and every fetch from the network are not. Only our page may frame it. */
export const sharedFrameCsp = [
  "sandbox",
  "default-src 'none'",
  "img-src data:",
  "style-src 'unsafe-inline'",
  "font-src data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join("; ");

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** `2026-11-23 10:00:00.000000+00` → `2026-11-23 10:00:00 UTC`, with the instant in `datetime`. */
function time(wire: string): string {
  const shown = `${wire.slice(0, 19)} UTC`;
  return `<time datetime="${escapeHtml(`${wire.slice(0, 10)}T${wire.slice(11, 19)}Z`)}">${escapeHtml(shown)}</time>`;
}

const row = (label: string, value: string) => `<dt>${label}</dt><dd>${value}</dd>`;

export function sharedEmailPage(message: SharedMessage, frameSrc: string): string {
  const rows = [
    row("From", escapeHtml(message.from)),
    row("To", escapeHtml(message.to.join(", "))),
    ...(message.cc.length > 0 ? [row("Cc", escapeHtml(message.cc.join(", ")))] : []),
    row("Date", time(message.date)),
  ];
  return page(
    message.subject || "(no subject)",
    `<h1>${escapeHtml(message.subject || "(no subject)")}</h1>
<dl>
${rows.join("\n")}
</dl>
<iframe sandbox="" referrerpolicy="no-referrer" src="${escapeHtml(frameSrc)}" title="The email's content"></iframe>
<p class="quiet">A shared email. This link works until ${time(message.expiresAt)}.</p>`,
  );
}

/** The body the frame shows: the email's html, else its text, as it was written. */
export function sharedFrameDocument(message: Pick<SharedMessage, "html" | "text">): string {
  if (message.html !== null) return message.html;
  const text = message.text ?? "";
  return `<!doctype html><html><head><meta charset="utf-8"></head><body><pre style="white-space:pre-wrap;font:14px/1.5 monospace">${escapeHtml(text)}</pre></body></html>`;
}

const problems = {
  invalid: {
    status: 404,
    title: "This link does not work",
    text: "The link is incomplete or was changed. Ask whoever shared it for a new one.",
  },
  revoked: { status: 410, title: "This link was revoked", text: "Whoever shared this email has stopped sharing it." },
  expired: { status: 410, title: "This link has expired", text: "Shared links last a limited time. Ask whoever shared it for a new one." },
  gone: {
    status: 410,
    title: "This email is no longer available",
    text: "Its content was erased or is past the time it is kept, so there is nothing left to show.",
  },
} as const;

export type SharedLinkProblem = keyof typeof problems;

export function sharedLinkProblem(kind: SharedLinkProblem): { status: number; html: string } {
  const problem = problems[kind];
  return { status: problem.status, html: page(problem.title, `<h1>${problem.title}</h1>\n<p>${problem.text}</p>`) };
}

/** What both responses carry: never cached, never indexed, never telling anyone where the reader came from. */
function privateHtml(reply: FastifyReply, status: number, csp: string) {
  return reply
    .code(status)
    .type("text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .header("referrer-policy", "no-referrer")
    .header("x-robots-tag", "noindex, nofollow")
    .header("x-content-type-options", "nosniff")
    .header("content-security-policy", csp);
}

/** The page, or a page in words saying why there is nothing to show. */
export function sendSharedPage(reply: FastifyReply, answer: SharedEmailAnswer, frameSrc: string) {
  const { status, html } =
    answer.kind === "shown" ? { status: 200, html: sharedEmailPage(answer.message, frameSrc) } : sharedLinkProblem(answer.kind);
  return privateHtml(reply, status, sharedPageCsp).header("x-frame-options", "DENY").send(html);
}

/** The frame's document: the email's body, sandboxed, or the same words as the page. */
export function sendSharedFrame(reply: FastifyReply, answer: SharedEmailAnswer) {
  const { status, html } =
    answer.kind === "shown" ? { status: 200, html: sharedFrameDocument(answer.message) } : sharedLinkProblem(answer.kind);
  return privateHtml(reply, status, sharedFrameCsp).header("x-frame-options", "SAMEORIGIN").send(html);
}
