import { randomBase62, sha256Hex } from "@tidings/core";

/** 40 base62 characters carry 238 random bits; Resend clients expect the `re_` prefix (docs/wire-compatibility.md §2.2). */
const TOKEN_LENGTH = 40;

export function newApiKeyToken(): string {
  return `re_${randomBase62(TOKEN_LENGTH)}`;
}

/**
 * Only this digest is stored (docs/architecture.md §4). A plain SHA-256 is enough: the token is random with 238 bits,
 * so there is no dictionary to try and nothing for a slow hash to protect.
 */
export function hashApiKeyToken(token: string): string {
  return sha256Hex(token);
}
