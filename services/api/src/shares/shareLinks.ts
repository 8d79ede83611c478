import { createHmac, timingSafeEqual } from "node:crypto";
import { deriveKey, isUuid } from "@tidings/core";

/** What a share link's token says: which link of which email, and until when (Unix seconds). */
export interface ShareClaims {
  shareId: string;
  emailId: string;
  expiresAt: number;
}

/** `{"alg":"HS256"}`: the token is a compact JWS, as the example URL of Resend's document shows (`eyJhbGciOiJIUzI1NiJ9…`). */
const header = Buffer.from(JSON.stringify({ alg: "HS256" })).toString("base64url");

/**
 * Share links (docs/wire-compatibility.md §6.1): `{PUBLIC_URL}/shared?token=<token>`, where the token names
 * the email's share stream and the link in it, and carries an HMAC under a key derived from
 * TIDINGS_SECRET, so a changed character makes it worthless. The signature only proves the link was
 * made here; whether it still works (revoked, expired) is the share stream's to say.
 */
export function shareLinks(options: { secret: string; publicUrl: string }) {
  const key = deriveKey(options.secret, "email-share-link");
  const sign = (signed: string) => createHmac("sha256", key).update(signed).digest("base64url");

  return {
    url(claims: ShareClaims): string {
      const payload = Buffer.from(JSON.stringify({ sub: claims.shareId, eml: claims.emailId, exp: claims.expiresAt })).toString(
        "base64url",
      );
      const signed = `${header}.${payload}`;
      return `${options.publicUrl.replace(/\/+$/, "")}/shared?token=${signed}.${sign(signed)}`;
    },
    /** The claims of a token signed here, expired or not; undefined for anything else. */
    read(token: string): ShareClaims | undefined {
      const parts = token.split(".");
      if (parts.length !== 3 || parts[0] !== header) return undefined;
      const expected = Buffer.from(sign(`${parts[0]}.${parts[1]}`));
      const given = Buffer.from(parts[2]!);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
      let payload: unknown;
      try {
        payload = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8"));
      } catch {
        return undefined;
      }
      const { sub, eml, exp } = (payload ?? {}) as { sub?: unknown; eml?: unknown; exp?: unknown };
      if (typeof sub !== "string" || typeof eml !== "string" || !isUuid(sub) || !isUuid(eml) || !Number.isInteger(exp)) return undefined;
      return { shareId: sub, emailId: eml, expiresAt: exp as number };
    },
  };
}

export type ShareLinks = ReturnType<typeof shareLinks>;
