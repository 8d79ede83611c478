import { groupsField, isSealedSlot } from "./envelope.js";

type Data = Record<string | symbol, unknown>;

/** What a view stands on: the stored data, how to open it, and what opening gave, once it has. */
interface View {
  stored: Data;
  open: (() => Data) | undefined;
  opened?: Data;
}

const holdsSlot = (value: unknown): boolean => {
  if (typeof value !== "object" || value === null) return false;
  if (isSealedSlot(value)) return true;
  return Array.isArray(value) ? value.some(holdsSlot) : Object.values(value).some(holdsSlot);
};

/**
 * Once opened, the view lets go of how it opened: `open` closes over the keys of the whole page it was read
 * with (a broadcast's plan: every recipient's), and the stored data's ciphertext is read no more.
 */
const openedOf = (view: View): Data => {
  if (!view.opened) {
    view.opened = view.open!();
    view.open = undefined;
    view.stored = view.opened;
  }
  return view.opened;
};

function valueOf(view: View, name: string | symbol): unknown {
  if (view.opened) return view.opened[name];
  if (name === groupsField) return undefined;
  const value = view.stored[name];
  return holdsSlot(value) ? openedOf(view)[name] : value;
}

/**
 * One handler for every view: a handler of its own per event cost more than the view saves. Until a
 * sealed value is read, the stored data answers, without its groups; from then on, the opened copy.
 * Writes go to the opened copy, never to the stored data, which other readers of the page share.
 */
const handler: ProxyHandler<View> = {
  get: (view, name) => valueOf(view, name),
  has: (view, name) => (view.opened ? name in view.opened : name !== groupsField && name in view.stored),
  ownKeys: (view) => (view.opened ? Reflect.ownKeys(view.opened) : Reflect.ownKeys(view.stored).filter((name) => name !== groupsField)),
  getOwnPropertyDescriptor: (view, name) => {
    if (!Object.hasOwn(view.opened ?? view.stored, name) || (!view.opened && name === groupsField)) return undefined;
    // An accessor, so that listing the keys (Object.keys asks whether each is enumerable) opens nothing.
    return {
      get: () => valueOf(view, name),
      set: (value) => Reflect.set(openedOf(view), name, value),
      enumerable: true,
      configurable: true,
    };
  },
  set: (view, name, value) => Reflect.set(openedOf(view), name, value),
  deleteProperty: (view, name) => Reflect.deleteProperty(openedOf(view), name),
  defineProperty: (view, name, descriptor) => Reflect.defineProperty(openedOf(view), name, descriptor),
};

/**
 * A sealed event's data as its reader sees it (docs/privacy.md, "Reading only what is read"): its values in
 * clear (ids, times, statuses) read as stored, and the first read of a value that holds a sealed slot
 * opens the whole event (`open`, every group at once). A saga that reads only an email's id deciphers
 * nothing; one that reads its recipients deciphers it once, however many times it reads.
 */
export function sealedView(stored: object, open: () => object): Record<string, unknown> {
  return new Proxy<View>({ stored: stored as Data, open: open as () => Data }, handler) as unknown as Record<string, unknown>;
}
