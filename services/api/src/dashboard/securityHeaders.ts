import type { FastifyReply } from "fastify";

/**
 * The dashboard's Content-Security-Policy: scripts and styles only from its own files (no inline script,
 * no `eval`), frames only of its own (the sandboxed email preview), forms posted only to itself, and no
 * page of it framed by any other (clickjacking).
 */
export const dashboardCsp = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "frame-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * Set on every dashboard answer that has not set its own (the preview frame and the assets do). The pages
 * show a team's data: never cached, never sent on as a referrer to another site.
 */
export function dashboardSecurityHeaders(reply: FastifyReply): void {
  if (!reply.hasHeader("content-security-policy")) reply.header("content-security-policy", dashboardCsp).header("x-frame-options", "DENY");
  if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
  reply.header("referrer-policy", "same-origin").header("x-content-type-options", "nosniff");
}
