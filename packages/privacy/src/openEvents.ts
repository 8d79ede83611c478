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
import { isWithheld, withoutData } from "@tidings/eventstore";
import type { Keyring } from "./keyring.js";
import { sealedView } from "./sealedView.js";
import { sealingPlanOf } from "./personalData.js";

interface WithData {
  type: string;
  data: unknown;
}

/** The sealed groups of a recorded event: none for a type that holds no personal data. */
export const groupsOfEvent = (event: WithData): SealedGroup[] => (sealingPlanOf(event.type) ? sealedGroupsOf(event.data) : []);

/**
 * Opens recorded events (docs/privacy.md): one key lookup for every group of the batch, then each event's
 * data as a view that deciphers on the first read of a sealed value (`sealedView`). A reader that reads
 * only what is in clear (a saga that wants an email's id, a read model that wants an outcome's email id)
 * never pays for the cipher. A value whose key was shredded reads as its erased placeholder. With
 * `dataTypes`, only those types are opened: the others come without their data ("Reading only what is
 * read", `withoutData`), so a rebuild of a read model that reads no personal type opens no key. The
 * `unopenedTypes` come with their data, whose sealed values are never opened nor their keys looked up.
 */
export async function openEvents<E extends WithData>(
  keyring: Keyring,
  events: E[],
  dataTypes?: ReadonlySet<string>,
  unopenedTypes?: ReadonlySet<string>,
): Promise<E[]> {
  const read = (event: E) => !dataTypes || dataTypes.has(event.type);
  const opens = (event: E) => !unopenedTypes?.has(event.type);
  const refs = new Set<string>();
  let sealed = false;
  for (const event of events) {
    if (!read(event)) continue;
    const groups = groupsOfEvent(event);
    if (groups.length === 0) continue;
    sealed = true;
    if (opens(event)) for (const group of groups) refs.add(group.k);
  }
  if (!sealed && !dataTypes) return events;
  const keys = refs.size > 0 ? await keyring.open(refs) : new Map<string, Buffer | undefined>();
  return events.map((event) => {
    // A store that withholds data did so already; one that does not (EventStoreDB) hands it sealed.
    if (!read(event)) return isWithheld(event) || groupsOfEvent(event).length === 0 ? event : withoutData<E>(event);
    const groups = groupsOfEvent(event);
    if (groups.length === 0) return event;
    const data = event.data as object;
    const open = opens(event) ? () => openedData(data, groups, keys) as object : () => refuseToOpen(event.type);
    return { ...event, data: sealedView(data, open) };
  });
}

/** A reader that left a type unopened and reads a sealed value of it anyway is told at once, as for withheld data. */
function refuseToOpen(type: string): never {
  throw new Error(`a sealed value of a ${type} was read by a reader that left the type unopened`);
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
