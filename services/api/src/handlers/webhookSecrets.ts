import { randomBytes } from "node:crypto";
import { createSealer } from "@tidings/core";
import { WEBHOOK_SECRET_SEAL_PURPOSE } from "@tidings/domain";

/** docs/wire-compatibility.md §8.3: `whsec_` + base64; receivers key the HMAC with the decoded bytes (32 here, 24 at least). */
export const newSigningSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

export const webhookSecretSealer = (secret: string) => createSealer(secret, WEBHOOK_SECRET_SEAL_PURPOSE);
