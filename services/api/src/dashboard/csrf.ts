import { randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Cross-site request forgery defences for the dashboard's forms. The session cookie is `SameSite=Strict`,
 * which already keeps it off requests another site starts; each form also carries the session's own
 * token, and a POST whose `Origin` names another site is refused before either is looked at, so an
 * older browser or a same-site subdomain cannot post for the signed-in person.
 */

/** 256 bits, URL-safe: it travels in a hidden form field. */
export const newCsrfToken = (): string => randomBytes(32).toString("base64url");

/** Compared in constant time, so the response time says nothing about how much of a guess was right. */
export function csrfTokenMatches(expected: string, given: unknown): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether a POST comes from this site. Browsers send `Origin` on every POST; when there is none (a
 * program, or a browser old enough to leave it out) the CSRF token alone decides. `own` are the origins
 * this site has.
 */
export function isSameOrigin(origin: string | undefined, own: readonly string[]): boolean {
  if (origin === undefined) return true;
  return own.some((site) => origin.toLowerCase() === site.toLowerCase());
}
