import {
  erasedValue,
  groupsField,
  isSealedSlot,
  openGroup,
  parseSlot,
  sealedGroupsOf,
  type SealedGroup,
  type SealedSlot,
} from "./envelope.js";
import type { Keyring } from "./keyring.js";
import { sealingPlanOf } from "./personalData.js";

interface WithData {
  type: string;
  data: unknown;
}

/** The sealed groups of a recorded event: none for a type that holds no personal data. */
export const groupsOfEvent = (event: WithData): SealedGroup[] => (sealingPlanOf(event.type) ? sealedGroupsOf(event.data) : []);

/**
 * Opens recorded events (docs/privacy.md): one key lookup for every group of the batch, then each event
 * with its data opened when first read. A reader that never reads an event's data (a projection of stream
 * heads, a saga that skips the type) never pays for it. A value whose key was shredded reads as its
 * erased placeholder. With `dataTypes`, only those types' keys are looked up and their data is opened at
 * once, since the reader said it reads it (a getter costs more than it spares then): the others come
 * unopened ("Reading only what is read"), so a rebuild of a read model that reads no personal type opens
 * no key.
 */
export async function openEvents<E extends WithData>(keyring: Keyring, events: E[], dataTypes?: ReadonlySet<string>): Promise<E[]> {
  const refs = new Set<string>();
  let sealed = false;
  for (const event of events) {
    const groups = groupsOfEvent(event);
    if (groups.length === 0) continue;
    sealed = true;
    if (!dataTypes || dataTypes.has(event.type)) for (const group of groups) refs.add(group.k);
  }
  if (!sealed) return events;
  const keys = refs.size > 0 ? await keyring.open(refs) : new Map<string, Buffer | undefined>();
  return events.map((event) => {
    const groups = groupsOfEvent(event);
    if (groups.length === 0) return event;
    if (dataTypes) return dataTypes.has(event.type) ? { ...event, data: openedData(event.data, groups, keys) } : unopened(event);
    const opened = { ...event };
    // The value is kept here as well as on the event: a reader that copies the event with its accessor
    // (`fromForwardedEvent`) opens it no sooner than it reads it, and no more than once.
    let value: unknown;
    let settled = false;
    const settle = (data: unknown) => {
      value = data;
      settled = true;
      Object.defineProperty(opened, "data", { value: data, writable: true, enumerable: true, configurable: true });
    };
    Object.defineProperty(opened, "data", {
      enumerable: true,
      configurable: true,
      get() {
        if (!settled) settle(openedData(event.data, groups, keys));
        return value;
      },
      set: settle,
    });
    return opened;
  });
}

/**
 * An event of a type its reader said it does not read. Reading its data anyway is the reader's mistake,
 * said at once rather than read as slots into a read model. The refusal sits on a shared prototype, not
 * on each event: a property defined per event cost 2.6 µs here, this copy 0.3 µs. Copying the event or
 * writing it as JSON skips it, as an inherited property.
 */
const unopenedEvent = {
  get data(): never {
    throw new Error(`the data of a ${(this as unknown as WithData).type} was read by a reader that did not name the type in its dataTypes`);
  },
};

function unopened<E extends WithData>(event: E): E {
  const copy = Object.create(unopenedEvent) as Record<string, unknown>;
  for (const name in event) if (name !== "data") copy[name] = event[name];
  return copy as E;
}

/**
 * The data with each slot replaced by its value, every group deciphered at once: a getter per value cost
 * more than deciphering the groups a reader did not need (docs/privacy.md). Only the objects and lists on
 * the way to a slot are copied: the rest is shared with the stored event, which other readers of the
 * same page (the forwarder among them) must see sealed.
 */
function openedData(data: unknown, groups: SealedGroup[], keys: Map<string, Buffer | undefined>): unknown {
  const opened = groups.map((group) => openGroup(group, keys.get(group.k)));
  const valueOf = (sealed: SealedSlot): unknown => {
    const slot = parseSlot(sealed);
    const values = opened[slot.group];
    return values && slot.index < values.length ? values[slot.index] : erasedValue(slot);
  };
  /** The node itself when nothing in it is sealed, else its copy with the slots' values in their places. */
  const open = (node: unknown): unknown => {
    if (typeof node !== "object" || node === null) return node;
    if (isSealedSlot(node)) return valueOf(node);
    if (Array.isArray(node)) {
      let out: unknown[] | undefined;
      for (let index = 0; index < node.length; index++) {
        const item: unknown = node[index];
        const value = open(item);
        if (!out && value !== item) out = node.slice(0, index);
        if (out) out.push(value);
      }
      return out ?? node;
    }
    let out: Record<string, unknown> | undefined;
    const record = node as Record<string, unknown>;
    for (const name in record) {
      const item = record[name];
      const value = name === groupsField ? undefined : open(item);
      if (!out && value !== item) {
        out = {};
        for (const before in record) {
          if (before === name) break;
          out[before] = record[before];
        }
      }
      if (out && name !== groupsField) out[name] = value;
    }
    return out ?? node;
  };
  return open(data);
}
