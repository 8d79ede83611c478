import { afterAll, beforeAll, describe } from "vitest";
import type { Bus } from "../port.js";
import { deliveryContract } from "./contractDelivery.js";
import { settlementContract } from "./contractSettlement.js";

export interface BusFixture {
  /** The bus under test. */
  bus: Bus;
  /** Another bus on the same storage, as a second process of the service would open it. */
  openBus(): Promise<Bus>;
  /** Closes every bus and the storage handles under them, as at process exit, and opens a new bus on the same storage. */
  restart(): Promise<Bus>;
  dispose(): Promise<void>;
}

/** What each part of the contract works on: the fixture, and the bus it opened last. */
export interface BusContractContext {
  fixture(): BusFixture;
  bus(): Bus;
  /** Restarts the fixture; the new bus is the one `bus()` gives from then on. */
  restart(): Promise<Bus>;
}

/** The semantics every bus adapter must keep (DESIGN §5). Each adapter's test file calls this once. */
export function busContract(adapter: string, createFixture: () => Promise<BusFixture>): void {
  describe(`bus contract: ${adapter}`, () => {
    let fixture: BusFixture;
    let bus: Bus;

    beforeAll(async () => {
      fixture = await createFixture();
      bus = fixture.bus;
    });
    afterAll(async () => {
      await fixture?.dispose();
    });

    const context: BusContractContext = {
      fixture: () => fixture,
      bus: () => bus,
      restart: async () => (bus = await fixture.restart()),
    };
    deliveryContract(context);
    settlementContract(context);
  });
}
