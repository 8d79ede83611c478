import type { Kysely } from "kysely";
import type { AllFilter, Position } from "../port.js";
import { readAllPage, type AllPage } from "./allReader.js";
import type { AppendSignal } from "./appendSignal.js";

export interface SharedRead {
  page: Promise<AllPage>;
  /** The oldest appending transaction notified since the query was sent, once `page` has settled. */
  notifiedSinceSent(): bigint | undefined;
}

interface InFlight extends SharedRead {
  notified: bigint | undefined;
}

/**
 * `$all` pages read once for every subscription of this store that asks for the same page while its query
 * is in flight. The projection runner follows `$all` once per projection: the subscriptions wake on the
 * same NOTIFY and ask for the same page at once, and one query (and one parse of its events) answers them
 * all. A page that has come back is not handed to later askers, who may be after newer events.
 *
 * A subscription decides whether to wait for the next NOTIFY from the notifications that arrived since its
 * read was sent; one that joins a query sent earlier learns of those too, as if it had sent it.
 */
export class SharedPages {
  private readonly inFlight = new Map<string, InFlight>();

  constructor(
    private readonly db: Kysely<any>,
    private readonly signal: AppendSignal,
  ) {}

  read(after: Position, limit: number, filter: AllFilter | undefined): SharedRead {
    const key = `${after.commit}:${after.prepare}:${limit}:${filter ? JSON.stringify(filter) : ""}`;
    const joined = this.inFlight.get(key);
    if (joined) return joined;
    const read: InFlight = {
      notified: undefined,
      page: readAllPage(this.db, after, limit, filter),
      notifiedSinceSent: () => read.notified,
    };
    const unlisten = this.signal.listen((tx) => {
      if (read.notified === undefined || tx < read.notified) read.notified = tx;
    });
    this.inFlight.set(key, read);
    const settled = () => {
      unlisten();
      this.inFlight.delete(key);
    };
    read.page.then(settled, settled);
    return read;
  }
}
