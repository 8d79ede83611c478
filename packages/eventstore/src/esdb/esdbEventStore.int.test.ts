import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { eventStoreContract, type EventStoreFixture } from "../testing/contract.js";
import { integrityContract } from "../testing/contractIntegrity.js";
import { openEsdbEventStore } from "./index.js";

const url = process.env.EVENTSTORE_URL ?? "";
const hasEsdb = /^esdb(\+discover)?:\/\//.test(url);

/**
 * The contract against the server EVENTSTORE_URL names. That server is shared by every run and keeps its
 * data, which the contract allows: each test writes to a category of its own and ignores other events in `$all`.
 */
async function esdbFixture(): Promise<EventStoreFixture> {
  let store = await openEsdbEventStore(url);
  return {
    get store() {
      return store;
    },
    url,
    async reopen() {
      await store.close();
      store = await openEsdbEventStore(url);
      return store;
    },
    async dispose() {
      await store.close();
    },
  };
}

if (!hasEsdb) {
  console.warn(
    "EventStoreDB contract suite skipped: EVENTSTORE_URL is not esdb://… " +
      "(run EventStoreDB and set EVENTSTORE_URL=esdb://localhost:2113?tls=false)",
  );
}
describe.skipIf(!hasEsdb)("EventStoreDB", () => {
  eventStoreContract("EventStoreDB", esdbFixture, { atomic: false });
  // EventStoreDB's log cannot be altered behind the adapter, so the tampering cases print why they skip.
  integrityContract("EventStoreDB", async () => {
    const store = await openEsdbEventStore(url);
    return { store, after: await store.headPosition(), dispose: () => store.close() };
  });
});

/** A local port nobody listens on: one the OS just handed out and took back. */
async function aClosedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("openEsdbEventStore", () => {
  it("fails at once, naming the server without its password, when nothing listens", async () => {
    const port = await aClosedPort();
    const started = Date.now();
    const error = await openEsdbEventStore(`esdb://admin:changeit@127.0.0.1:${port}?tls=false`).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error?.message).toMatch(new RegExp(`^EventStoreDB at esdb://\\*\\*\\*@127\\.0\\.0\\.1:${port}\\?tls=false is unavailable: `));
    expect(error?.message).not.toContain("changeit");
    expect(error?.cause).toMatchObject({ code: 14 });
  });

  it("rejects a connection string the client cannot parse", async () => {
    await expect(openEsdbEventStore("esdb://")).rejects.toThrow();
  });
});
