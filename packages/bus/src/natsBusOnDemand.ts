import type { Bus } from "./port.js";
import type { NatsBusOptions } from "./nats/bus.js";

/**
 * The NATS bus, with its client loaded when a process asks for it: embedded mode and server mode without
 * NATS_URL never do, and the client is about 2 MB of heap and 5 MB resident in every process that imports it.
 */
export async function createNatsBus(options: NatsBusOptions = {}): Promise<Bus> {
  return (await import("./nats/bus.js")).createNatsBus(options);
}
