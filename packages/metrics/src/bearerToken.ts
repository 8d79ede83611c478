import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Whether an `Authorization` header carries `token` as a bearer token; any header passes when no token is
 * set. Both sides are hashed first, so the comparison takes the same time whatever the lengths.
 */
export function bearerTokenAccepted(token: string | undefined, authorization: string | undefined): boolean {
  if (!token) return true;
  const match = /^Bearer (.+)$/i.exec(authorization ?? "");
  if (!match) return false;
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(match[1]!), digest(token));
}
