import { createHmac } from "node:crypto";

/**
 * Standard Webhooks signing (docs/wire-compatibility.md §8.3), what the SDK's `webhooks.verify` checks: base64
 * HMAC-SHA256 of `id.timestamp.body`, keyed with the base64-decoded part of `whsec_…`, sent as `v1,<sig>`.
 * Several secrets (a rotation's grace) give several space-separated signatures; any one verifies.
 */
export function signatureHeader(secrets: string[], id: string, timestampSeconds: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
      return `v1,${createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`;
    })
    .join(" ");
}

/** Both header sets: Resend's receivers read `svix-*`, Standard Webhooks libraries `webhook-*`. */
export function webhookHeaders(secrets: string[], id: string, timestampSeconds: number, body: string): Record<string, string> {
  const signature = signatureHeader(secrets, id, timestampSeconds, body);
  const timestamp = String(timestampSeconds);
  return {
    "svix-id": id,
    "svix-timestamp": timestamp,
    "svix-signature": signature,
    "webhook-id": id,
    "webhook-timestamp": timestamp,
    "webhook-signature": signature,
  };
}
