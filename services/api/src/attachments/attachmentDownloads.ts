import { createHmac, timingSafeEqual } from "node:crypto";
import { deriveKey, formatTimestamp } from "@tidings/core";

export const DOWNLOAD_URL_LIFETIME_MS = 60 * 60 * 1000;

export interface SignedDownload {
  download_url: string;
  expires_at: string;
}

/**
 * Pre-signed, expiring download URLs (docs/wire-compatibility.md §6.2, §6.3: attachments, and a received message's raw
 * bytes) served by the api itself: the URL carries its expiry and an HMAC of its path, so the download
 * route needs no key. `receiving.forward` in the SDK fetches one with plain `fetch`, without a key.
 */
export function signedDownloads(options: { secret: string; publicUrl: string; clock: { now(): Date } }) {
  const key = deriveKey(options.secret, "attachment-download");
  const signature = (path: string, expires: number) => createHmac("sha256", key).update(`${path}\n${expires}`).digest("base64url");

  return {
    /** A URL for `path` (absolute, from `/`) that lasts DOWNLOAD_URL_LIFETIME_MS. */
    sign(path: string): SignedDownload {
      const expiresAt = new Date(options.clock.now().getTime() + DOWNLOAD_URL_LIFETIME_MS);
      const expires = Math.floor(expiresAt.getTime() / 1000);
      return {
        download_url: `${options.publicUrl}${path}?expires=${expires}&signature=${signature(path, expires)}`,
        expires_at: formatTimestamp(new Date(expires * 1000)),
      };
    },
    /** True when the signature is ours for exactly this path and the URL has not expired. */
    verify(path: string, expires: number, given: string): boolean {
      if (expires * 1000 < options.clock.now().getTime()) return false;
      const expected = Buffer.from(signature(path, expires));
      const actual = Buffer.from(given);
      return expected.length === actual.length && timingSafeEqual(expected, actual);
    },
  };
}

export type SignedDownloads = ReturnType<typeof signedDownloads>;
