import { createHmac, timingSafeEqual } from "node:crypto";
import { deriveKey } from "@tidings/core";

/**
 * Envelope senders (Return-Path) for the emails of a team's domains: an address on the domain's return path
 * (`send.<domain>`, whose MX and SPF records point at us), so SPF aligns, and a variable one (VERP) naming
 * the email, so a bounce that comes back later says which email it is about even when it quotes nothing
 * of it. The address carries an HMAC of the id: a report to an address we did not make names no email,
 * so nobody who merely knows an email's id (its Message-ID shows it) can bounce its recipients.
 */
export function bounceAddresses(secret: string) {
  const key = deriveKey(secret, "bounce-address");
  const tag = (emailId: string) => createHmac("sha256", key).update(emailId.toLowerCase()).digest("hex").slice(0, 16);
  const pattern = /^bounce\+([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([0-9a-f]{16})@/i;
  return {
    for: (emailId: string, returnPathDomain: string) => `bounce+${emailId}.${tag(emailId)}@${returnPathDomain}`,
    /** The email a bounce address names, or null when it is not one of ours. */
    emailIdOf(address: string): string | null {
      const m = pattern.exec(address);
      if (!m) return null;
      const emailId = m[1]!.toLowerCase();
      const expected = Buffer.from(tag(emailId));
      const given = Buffer.from(m[2]!.toLowerCase());
      return timingSafeEqual(expected, given) ? emailId : null;
    },
  };
}

export type BounceAddresses = ReturnType<typeof bounceAddresses>;
