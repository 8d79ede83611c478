import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { deriveKey, formatTimestamp } from "@tidings/core";

export const DOWNLOAD_URL_LIFETIME_MS = 60 * 60 * 1000;

export interface SignedDownload {
  download_url: string;
  expires_at: string;
}

/**
 * Pre-signed, expiring attachment URLs (reference §6.2) served by the api itself: the URL carries its
 * expiry and an HMAC of what it names, so the download route needs no key. Without TIDINGS_SECRET
 * (embedded mode keeps its secret outside the config) the key is random per process: URLs then last
 * until the process restarts, which is all a single embedded process needs.
 */
export function attachmentDownloads(options: { secret: string | undefined; publicUrl: string; clock: { now(): Date } }) {
  const key = deriveKey(options.secret ?? randomBytes(32).toString("hex"), "attachment-download");
  const signature = (emailId: string, attachmentId: string, expires: number) =>
    createHmac("sha256", key).update(`${emailId}/${attachmentId}/${expires}`).digest("base64url");

  return {
    sign(emailId: string, attachmentId: string): SignedDownload {
      const expiresAt = new Date(options.clock.now().getTime() + DOWNLOAD_URL_LIFETIME_MS);
      const expires = Math.floor(expiresAt.getTime() / 1000);
      const query = `expires=${expires}&signature=${signature(emailId, attachmentId, expires)}`;
      return {
        download_url: `${options.publicUrl}/emails/${emailId}/attachments/${attachmentId}/download?${query}`,
        expires_at: formatTimestamp(new Date(expires * 1000)),
      };
    },
    /** True when the signature is ours for exactly these ids and the URL has not expired. */
    verify(emailId: string, attachmentId: string, expires: number, given: string): boolean {
      if (expires * 1000 < options.clock.now().getTime()) return false;
      const expected = Buffer.from(signature(emailId, attachmentId, expires));
      const actual = Buffer.from(given);
      return expected.length === actual.length && timingSafeEqual(expected, actual);
    },
  };
}
