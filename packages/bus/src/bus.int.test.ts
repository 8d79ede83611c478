import { createTestDatabase, testMode, type Database } from "@tidings/postgres";
import { busContract, type BusFixture } from "./testing/contract.js";
import { natsTestStreams } from "./testing/testBus.js";
import { createInProcessBus } from "./inprocess/bus.js";
import { createNatsBus } from "./nats/bus.js";
import type { Bus } from "./port.js";

/** The in-process bus on this mode's database; a restart closes the database too and opens it again. */
async function inProcessFixture(): Promise<BusFixture> {
  const test = await createTestDatabase({ persistent: true });
  const open: Array<{ bus: Bus; database?: Database }> = [];
  const openOn = async (database: Database, owned: boolean) => {
    const bus = await createInProcessBus(database, { pollIntervalMs: 500 });
    open.push({ bus, database: owned ? database : undefined });
    return bus;
  };
  let database = test.database;
  const closeAll = async () => {
    for (const { bus, database: owned } of open.splice(0)) {
      await bus.close();
      await owned?.close();
    }
  };
  return {
    bus: await openOn(database, false),
    // PGlite is one process's database: a second bus there shares the handle. PostgreSQL gets a new pool.
    openBus: () => (database.kind === "pglite" ? openOn(database, false) : test.reopen().then((d) => openOn(d, true))),
    async restart() {
      await closeAll();
      if (database.kind === "postgres") await database.close();
      database = await test.reopen();
      return openOn(database, false);
    },
    async dispose() {
      await closeAll();
      await test.dispose();
    },
  };
}

/** NATS with streams and a subject prefix of this file's own, deleted at the end. */
async function natsFixture(): Promise<BusFixture> {
  const streams = natsTestStreams();
  const open: Bus[] = [];
  const openBus = async () => {
    const bus = await createNatsBus(streams.options);
    open.push(bus);
    return bus;
  };
  const closeAll = () => Promise.all(open.splice(0).map((bus) => bus.close()));
  return {
    bus: await openBus(),
    openBus,
    async restart() {
      await closeAll();
      return openBus();
    },
    // Streams go first: a failed test can leave a handler stuck, and then closing its bus never ends.
    async dispose() {
      await streams.remove();
      await closeAll();
    },
  };
}

if (testMode() === "server") {
  busContract("NATS JetStream", natsFixture);
  busContract("in-process on PostgreSQL", inProcessFixture);
} else {
  busContract("in-process on PGlite", inProcessFixture);
}
