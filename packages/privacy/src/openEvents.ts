import type { DataKeys } from "./dataKeys.js";
import { isSealed, openValue, type Sealed } from "./envelope.js";
import { sealingPlanOf } from "./personalData.js";

interface WithData {
  type: string;
  data: unknown;
}

/**
 * Opens the sealed values of recorded events (docs/privacy.md): one lookup for every key the batch needs;
 * a value whose key was shredded reads as its erased placeholder. Events of types that hold no personal
 * data are passed through untouched.
 */
export async function openEvents<E extends WithData>(keys: DataKeys, events: E[]): Promise<E[]> {
  const ids: string[] = [];
  for (const event of events) if (sealingPlanOf(event.type)) collectKeyIds(event.data, ids);
  if (ids.length === 0) return events;
  const opened = await keys.open(ids);
  return events.map((event) => (sealingPlanOf(event.type) ? { ...event, data: openWithin(event.data, opened) } : event));
}

export function collectKeyIds(value: unknown, ids: string[]): void {
  if (isSealed(value)) ids.push(value.$sealed.k);
  else if (Array.isArray(value)) for (const item of value) collectKeyIds(item, ids);
  else if (typeof value === "object" && value !== null) for (const item of Object.values(value)) collectKeyIds(item, ids);
}

function openWithin(value: unknown, opened: Map<string, Buffer>): unknown {
  if (isSealed(value)) return openValue(value as Sealed, opened.get(value.$sealed.k));
  if (Array.isArray(value)) return value.map((item) => openWithin(item, opened));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, openWithin(item, opened)]));
  }
  return value;
}
