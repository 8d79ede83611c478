import type { EventStore } from "../port.js";
import { BACKWARDS, END, EsdbClient } from "./client.js";
import { isUnavailable } from "./clientErrors.js";
import { consumeRead } from "./consumeRead.js";
import { createEsdbEventStore } from "./store.js";

export { createEsdbEventStore } from "./store.js";

/** How long `openEsdbEventStore` waits for the server before it gives up. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Opens the EventStoreDB event store at an `esdb://` or `esdb+discover://` connection string, and checks that
 * the server answers a read of `$all`, which the adapter needs, before returning it. A refused connection
 * fails at once; a server that does not answer fails after 10 s. Against a secure server the connection string
 * needs a user allowed to read `$all` (by default, an admin).
 */
export async function openEsdbEventStore(url: string): Promise<EventStore> {
  let client: EsdbClient | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    // The adapter tells a refused append by the client's error: an answer of `success: false` instead would
    // need a second path through every append.
    if (/[?&]throwOnAppendFailure=false/i.test(url)) throw new Error("throwOnAppendFailure=false is not supported: remove it from the URL");
    client = EsdbClient.connectionString(url);
    const store = createEsdbEventStore(client);
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`)), CONNECT_TIMEOUT_MS);
    });
    const probe = consumeRead(client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 }), () => true);
    await Promise.race([probe, timeout]);
    return store;
  } catch (error) {
    await client?.dispose();
    const where = url.replace(/\/\/[^/@]*@/, "//***@");
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`EventStoreDB at ${where} is ${isUnavailable(error) ? "unavailable" : "not usable"}: ${reason}`, {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
}
