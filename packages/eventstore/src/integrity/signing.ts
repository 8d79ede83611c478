import { createPrivateKey, createPublicKey, hkdfSync, sign, verify, type KeyObject } from "node:crypto";

/** The DER header of a PKCS#8 Ed25519 private key; the 32-byte seed follows it. */
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
/** The DER header of an SPKI Ed25519 public key; the 32 raw bytes follow it. */
const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/** Signs seals and says which public key checks them. */
export interface SealKeys {
  /** The raw 32-byte Ed25519 public key in hex: what operators publish and auditors pass to `audit verify`. */
  publicKey: string;
  sign(message: string): string;
}

/**
 * Ed25519 keys derived from TIDINGS_SECRET with HKDF and a purpose label of their own, as the other
 * derived keys are (`deriveKey` in @tidings/core): nothing new to store or back up, the same key after a
 * restart or on another process, and a public key anyone can check seals with without the secret
 * (docs/operations.md, "Integrity").
 */
export function sealKeys(secret: string): SealKeys {
  return keysFromSeed(Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.alloc(0), "tidings:audit-seal-ed25519", 32)));
}

/** The Ed25519 key pair of a 32-byte seed (RFC 8032's private key). */
export function keysFromSeed(seed: Buffer): SealKeys {
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
  const raw = createPublicKey(privateKey).export({ format: "der", type: "spki" }).subarray(SPKI_ED25519_PREFIX.length);
  return {
    publicKey: raw.toString("hex"),
    sign: (message) => sign(null, Buffer.from(message, "utf8"), privateKey).toString("hex"),
  };
}

const publicKeys = new Map<string, KeyObject>();

/** Whether `signature` (hex) is `publicKey`'s (raw hex) over `message`; false for a malformed key or signature. */
export function verifySignature(publicKey: string, message: string, signature: string): boolean {
  try {
    let key = publicKeys.get(publicKey);
    if (!key) {
      key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(publicKey, "hex")]), format: "der", type: "spki" });
      publicKeys.set(publicKey, key);
    }
    return verify(null, Buffer.from(message, "utf8"), key, Buffer.from(signature, "hex"));
  } catch {
    return false;
  }
}
