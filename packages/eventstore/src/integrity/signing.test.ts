import { describe, expect, it } from "vitest";
import { keysFromSeed, sealKeys, verifySignature } from "./signing.js";

describe("seal keys", () => {
  it("build RFC 8032's first test key from its seed and sign as it says", () => {
    const keys = keysFromSeed(Buffer.from("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60", "hex"));
    expect(keys.publicKey).toBe("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
    expect(keys.sign("")).toBe(
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    );
  });

  it("are the same for the same secret, differ for another, and verify only their own signatures", () => {
    const keys = sealKeys("one secret");
    expect(sealKeys("one secret").publicKey).toBe(keys.publicKey);
    expect(sealKeys("another secret").publicKey).not.toBe(keys.publicKey);
    const signature = keys.sign("a seal");
    expect(verifySignature(keys.publicKey, "a seal", signature)).toBe(true);
    expect(verifySignature(keys.publicKey, "a seal!", signature)).toBe(false);
    expect(verifySignature(sealKeys("another secret").publicKey, "a seal", signature)).toBe(false);
    expect(verifySignature("not hex", "a seal", signature)).toBe(false);
  });
});
