import { generateKeyPair } from "node:crypto";
import { promisify } from "node:util";
import { createSealer } from "@tidings/core";

const generate = promisify(generateKeyPair);

/** The HKDF purpose DKIM private keys are sealed under (docs/architecture.md §4): one leaked derived key exposes nothing else. */
const purpose = "dkim-private-key";

export interface SealedDkimKey {
  /** Base64 SubjectPublicKeyInfo (DER): the `p=` of the DKIM record. */
  publicKey: string;
  /** The PEM private key, AES-256-GCM sealed under TIDINGS_SECRET. */
  sealedPrivateKey: string;
}

/** A new RSA-2048 DKIM key pair; the private key leaves this function sealed only. */
export async function generateDkimKey(secret: string): Promise<SealedDkimKey> {
  const { publicKey, privateKey } = await generate("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "der" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  return { publicKey: publicKey.toString("base64"), sealedPrivateKey: createSealer(secret, purpose).seal(privateKey) };
}

/** The PEM private key of a sealed DKIM key, for signing. */
export function openDkimPrivateKey(secret: string, sealedPrivateKey: string): string {
  return createSealer(secret, purpose).openText(sealedPrivateKey);
}
