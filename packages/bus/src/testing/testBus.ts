import { testMode, type Database } from "@tidings/postgres";
import { connect } from "nats";
import { createInProcessBus } from "../inprocess/bus.js";
import { createNatsBus, type NatsBusOptions } from "../nats/bus.js";
import type { Bus } from "../port.js";

const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";

export interface NatsTestStreams {
  /** Bus options on streams and a subject prefix of their own, so that test files can share one server. */
  options: NatsBusOptions;
  /** Deletes both streams, whether or not a bus ever created them. */
  remove(): Promise<void>;
}

/** Streams for one test file on the shared NATS server, named after the process and a random tag. */
export function natsTestStreams(): NatsTestStreams {
  const ns = `T${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const options = { servers: natsUrl, eventsStream: `${ns}_EVENTS`, deadLetterStream: `${ns}_DEADLETTER`, subjectPrefix: `${ns}.` };
  return {
    options,
    async remove() {
      const nc = await connect({ servers: natsUrl });
      const jsm = await nc.jetstreamManager();
      await jsm.streams.delete(options.eventsStream).catch(() => {});
      await jsm.streams.delete(options.deadLetterStream).catch(() => {});
      await nc.close();
    },
  };
}

/**
 * The bus a test file runs on in this mode: NATS on streams of the file's own in server mode, which closing
 * the bus deletes, the in-process bus on the file's database otherwise. The streams go before the
 * connection: a failed test can leave a handler stuck, and then closing its bus never ends.
 */
export async function openTestBus(database: Database): Promise<Bus> {
  if (testMode() !== "server") return createInProcessBus(database);
  const streams = natsTestStreams();
  const bus = await createNatsBus(streams.options);
  return {
    ...bus,
    async close() {
      await streams.remove();
      await bus.close();
    },
  };
}
