import { createPublicKey, createSign, createVerify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateDkimKey, openDkimPrivateKey } from "./dkimKeys.js";

const secret = "s".repeat(40);

describe("DKIM keys", () => {
  it("generates an RSA-2048 pair whose private key is sealed and opens only with the secret", async () => {
    const key = await generateDkimKey(secret);
    expect(key.sealedPrivateKey).not.toMatch(/PRIVATE KEY/);
    const publicKey = createPublicKey({ key: Buffer.from(key.publicKey, "base64"), format: "der", type: "spki" });
    expect(publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    const pem = openDkimPrivateKey(secret, key.sealedPrivateKey);
    const signature = createSign("sha256").update("m").sign(pem);
    expect(createVerify("sha256").update("m").verify(publicKey, signature)).toBe(true);
    expect(() => openDkimPrivateKey("t".repeat(40), key.sealedPrivateKey)).toThrow();
  });
});
