import { createCipheriv, createDecipheriv, randomFillSync } from "node:crypto";

/**
 * How an event stores its personal values (docs/privacy.md, "What an event holds"). The values sealed under
 * one key are sealed together, as one AES-256-GCM ciphertext (a group) in the event's `$sealedGroups`,
 * with the key's reference as additional data, so a ciphertext cannot be moved under another key. Each
 * value's place holds a slot, `{"$sealed": "<group>.<index>.<shape>.<tag>"}`: where its value is, the
 * shape a reader gets once the key is gone (so code that expects an object or a list still gets one) and
 * the stable tag its erased placeholder shows (`erased:<tag>`). One cipher per key and event, not per
 * value: a cipher costs about 6 µs to make. A slot is one short string, as cheap to parse as it can be:
 * every read of the event store parses it.
 */
export interface SealedSlot {
  $sealed: string;
}

export interface Slot {
  group: number;
  index: number;
  shape: ErasedShape;
  tag: string;
}

export const slotOf = (slot: Slot): SealedSlot => ({ $sealed: `${slot.group}.${slot.index}.${slot.shape}.${slot.tag}` });

export function parseSlot(slot: SealedSlot): Slot {
  const [group, index, shape] = slot.$sealed.split(".", 3) as [string, string, ErasedShape];
  const tag = slot.$sealed.slice(group.length + index.length + shape.length + 3);
  return { group: Number(group), index: Number(index), shape, tag };
}

export interface SealedGroup {
  /** The key reference (keyRefs.ts). */
  k: string;
  /** The 12-byte IV, the 16-byte authentication tag and the ciphertext of the JSON list of the group's values, in one base64url text. */
  v: string;
}

export const groupsField = "$sealedGroups";

export type ErasedShape = "text" | "object" | "list" | "null";

export function isSealedSlot(value: unknown): value is SealedSlot {
  return typeof value === "object" && value !== null && typeof (value as Partial<SealedSlot>).$sealed === "string";
}

/** The groups an event's data holds; none for data that was never sealed. */
export function sealedGroupsOf(data: unknown): SealedGroup[] {
  const groups = typeof data === "object" && data !== null ? (data as Record<string, unknown>)[groupsField] : undefined;
  return Array.isArray(groups) ? (groups as SealedGroup[]) : [];
}

export function shapeOf(value: unknown): ErasedShape {
  if (typeof value === "string") return "text";
  if (Array.isArray(value)) return "list";
  if (typeof value === "object" && value !== null) return "object";
  return "null";
}

// Initialisation vectors come from a pool refilled a few kilobytes at a time: one random read per group
// cost as much as its cipher. A 96-bit random IV per message is GCM's recommended use.
const ivPool = Buffer.alloc(12 * 512);
let ivNext = ivPool.length;
function nextIv(): Buffer {
  if (ivNext === ivPool.length) {
    randomFillSync(ivPool);
    ivNext = 0;
  }
  const iv = Buffer.from(ivPool.subarray(ivNext, ivNext + 12));
  ivNext += 12;
  return iv;
}

export function sealGroup(ref: string, key: Buffer, values: unknown[]): SealedGroup {
  const iv = nextIv();
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(ref, "utf8"));
  const body = cipher.update(JSON.stringify(values), "utf8");
  cipher.final();
  return { k: ref, v: Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url") };
}

/** The group's values, or undefined when its key is gone or does not open it (a key made again after an erasure). */
export function openGroup(group: SealedGroup, key: Buffer | undefined): unknown[] | undefined {
  if (!key) return undefined;
  const sealed = Buffer.from(group.v, "base64url");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, 12));
    decipher.setAAD(Buffer.from(group.k, "utf8"));
    decipher.setAuthTag(sealed.subarray(12, 28));
    const body = decipher.update(sealed.subarray(28));
    decipher.final();
    const values: unknown = JSON.parse(body.toString("utf8"));
    return Array.isArray(values) ? values : undefined;
  } catch {
    return undefined;
  }
}

export function erasedValue(slot: Slot): unknown {
  switch (slot.shape) {
    case "text":
      return erasedText(slot.tag);
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
