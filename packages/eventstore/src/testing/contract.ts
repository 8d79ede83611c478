import { afterAll, beforeAll, describe } from "vitest";
import type { EventStore } from "../port.js";
import { appendContract } from "./contractAppend.js";
import { appendManyContract, type AppendManyGuarantee } from "./contractAppendMany.js";
import { readContract } from "./contractRead.js";
import { resumeContract } from "./contractResume.js";
import { subscribeContract } from "./contractSubscribe.js";

export interface EventStoreFixture {
  /** The open store; `reopen()` replaces it. */
  store: EventStore;
  /** A URL `openEventStore(url)` opens in a child process (PGlite: the directory; close `store` first). */
  url: string;
  /** Closes `store` (if still open) and opens the same store again, as a restarted process would. */
  reopen(): Promise<EventStore>;
  /**
   * Another instance over the same storage, as a second process would open it (closed with the fixture).
   * One instance may queue its own racing appends one after another (group commit), so only a race between
   * instances tests the store's locks. Without it, `store` races itself.
   */
  another?(): EventStore;
  dispose(): Promise<void>;
}

/** What each part of the contract gets: the store open now, and the fixture for restarts. */
export interface ContractContext {
  store(): EventStore;
  fixture(): EventStoreFixture;
  /** Closes the store and opens it again; later tests use the new one. */
  reopen(): Promise<EventStore>;
}

/**
 * The behaviour every event store adapter must have (docs/architecture.md §2). One fixture serves the whole suite, since
 * a PGlite costs seconds to start; every test works on streams and categories of its own.
 */
export function eventStoreContract(
  adapter: string,
  createFixture: () => Promise<EventStoreFixture>,
  appendMany: AppendManyGuarantee = { atomic: true },
): void {
  describe(`event store contract: ${adapter}`, () => {
    let fixture: EventStoreFixture | undefined;
    let store: EventStore | undefined;
    const context: ContractContext = {
      store: () => store ?? fail("no store: the fixture did not start"),
      fixture: () => fixture ?? fail("no fixture"),
      async reopen() {
        store = await context.fixture().reopen();
        return store;
      },
    };
    beforeAll(async () => {
      fixture = await createFixture();
      store = fixture.store;
    });
    afterAll(async () => {
      await fixture?.dispose();
    });

    appendContract(context);
    appendManyContract(context, appendMany);
    readContract(context);
    subscribeContract(context);
    resumeContract(context);
  });
}

function fail(message: string): never {
  throw new Error(message);
}
