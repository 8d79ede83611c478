import type { AllFilter, Position } from "../port.js";
import type { AllPage } from "./allReader.js";

export type PageReader = (
  after: Position,
  limit: number | undefined,
  filter?: AllFilter,
  dataTypes?: ReadonlySet<string>,
) => Promise<AllPage>;

/**
 * Page reads of `$all` (`readAllPage`), with the identical reads asked in one turn of the event loop made once: the
 * subscriptions of a process that follow `$all` at the same point (the projector's live projections and
 * its forwarder) all wake on the same append notification, and each read cost a statement of its own.
 * The read goes out after every request that shares it, so its snapshot is as new as each would have
 * taken alone: a notification arriving meanwhile is news to the subscriptions either way.
 */
export function sharedPageReads(read: PageReader): PageReader {
  const asked = new Map<string, Promise<AllPage>>();
  return (after, limit, filter, dataTypes) => {
    const types = dataTypes ? [...dataTypes].sort().join(",") : "*";
    const key = `${after.commit}:${after.prepare}:${limit ?? ""}:${filter ? JSON.stringify(filter) : ""}:${types}`;
    let page = asked.get(key);
    if (!page) {
      page = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        asked.delete(key);
        return read(after, limit, filter, dataTypes);
      });
      asked.set(key, page);
    }
    return page;
  };
}
