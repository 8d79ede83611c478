import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * A personal value as an event stores it (docs/privacy.md): AES-256-GCM under a data key, with the key's
 * id as additional data, so a ciphertext cannot be moved under another key. `s` is a short, stable tag
 * that the erased placeholder shows (`erased:<s>`), and `e` the shape a reader gets in its place once the
 * key is gone, so code that expects an object or a list still gets one.
 */
export interface Sealed {
  $sealed: { k: string; s: string; e: ErasedShape; v: string };
}

export type ErasedShape = "text" | "object" | "list" | "null";

export function isSealed(value: unknown): value is Sealed {
  return typeof value === "object" && value !== null && "$sealed" in value && typeof (value as Sealed).$sealed?.k === "string";
}

export function shapeOf(value: unknown): ErasedShape {
  if (typeof value === "string") return "text";
  if (Array.isArray(value)) return "list";
  if (typeof value === "object" && value !== null) return "object";
  return "null";
}

export function sealValue(keyId: string, key: Buffer, tag: string, value: unknown): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(keyId, "utf8"));
  const body = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
  const v = `${iv.toString("base64url")}.${cipher.getAuthTag().toString("base64url")}.${body.toString("base64url")}`;
  return { $sealed: { k: keyId, s: tag, e: shapeOf(value), v } };
}

/** The value, or the erased placeholder when the key is gone or does not open it (a key made again after an erasure). */
export function openValue(sealed: Sealed, key: Buffer | undefined): unknown {
  const { k, v } = sealed.$sealed;
  if (key) {
    const [iv, tag, body] = v.split(".");
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv!, "base64url"));
      decipher.setAAD(Buffer.from(k, "utf8"));
      decipher.setAuthTag(Buffer.from(tag!, "base64url"));
      return JSON.parse(Buffer.concat([decipher.update(Buffer.from(body!, "base64url")), decipher.final()]).toString("utf8"));
    } catch {
      return erasedValue(sealed);
    }
  }
  return erasedValue(sealed);
}

export function erasedValue(sealed: Sealed): unknown {
  switch (sealed.$sealed.e) {
    case "text":
      return erasedText(sealed.$sealed.s);
    case "object":
      return {};
    case "list":
      return [];
    case "null":
      return null;
  }
}

export const erasedText = (tag: string) => `erased:${tag}`;

export function isErasedText(value: unknown): boolean {
  return typeof value === "string" && value.startsWith("erased:");
}
