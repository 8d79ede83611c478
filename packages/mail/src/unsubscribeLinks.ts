import { createHmac, timingSafeEqual } from "node:crypto";
import { deriveKey } from "@tidings/core";

/**
 * Unsubscribe and preference links: the token names the contact, the team, optionally one topic, and an
 * expiry, and carries an HMAC over them, so the page checks it without a database lookup and a changed
 * character makes it worthless. Broadcasts put the URL in `{{{SERVICE_UNSUBSCRIBE_URL}}}` and in the
 * `List-Unsubscribe` header (RFC 8058 one-click POSTs to the same URL).
 */
export interface UnsubscribeClaims {
  contactId: string;
  teamId: string;
  /** The topic the email was sent for: one-click then opts out of that topic only. */
  topicId: string | null;
  /** Unix seconds. */
  expiresAt: number;
}

const keys = new Map<string, Buffer>();
/** HKDF costs more than the HMAC it keys, and a broadcast signs a link per recipient: each secret's key is derived once. */
function keyFor(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= 16) keys.clear();
    key = deriveKey(secret, "unsubscribe-link");
    keys.set(secret, key);
  }
  return key;
}
const sign = (secret: string, body: string) => createHmac("sha256", keyFor(secret)).update(body).digest("base64url");

export function unsubscribeToken(secret: string, claims: UnsubscribeClaims): string {
  const body = Buffer.from([claims.contactId, claims.teamId, claims.topicId ?? "", String(claims.expiresAt)].join("|")).toString(
    "base64url",
  );
  return `${body}.${sign(secret, body)}`;
}

/** The claims of a token this secret signed and that has not expired; undefined for anything else. */
export function readUnsubscribeToken(secret: string, token: string, now: Date): UnsubscribeClaims | undefined {
  const [body, signature, extra] = token.split(".");
  if (!body || !signature || extra !== undefined) return undefined;
  const expected = Buffer.from(sign(secret, body));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  const [contactId, teamId, topicId, expires] = Buffer.from(body, "base64url").toString("utf8").split("|");
  const expiresAt = Number(expires);
  if (!contactId || !teamId || topicId === undefined || !Number.isInteger(expiresAt) || expiresAt * 1000 < now.getTime()) return undefined;
  return { contactId, teamId, topicId: topicId || null, expiresAt };
}

/** `{PUBLIC_URL}/unsubscribe/<token>`: the page, and the RFC 8058 one-click target. */
export function unsubscribeUrl(publicUrl: string, secret: string, claims: UnsubscribeClaims): string {
  return unsubscribeUrlOf(publicUrl, unsubscribeToken(secret, claims));
}

export function unsubscribeUrlOf(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/unsubscribe/${token}`;
}
