import { afterAll, beforeAll, describe } from "vitest";
import type { Bus } from "../port.js";
import { deadLettersContract } from "./contractDeadLetters.js";
import { deliveryContract } from "./contractDelivery.js";
import { pendingContract } from "./contractPending.js";
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

/** What each part of the contract works on. */
export interface BusContractContext {
  /** Stands for the bus the fixture opened last, so a test goes on using it across a restart. */
  bus: Bus;
  fixture(): BusFixture;
  restart(): Promise<void>;
}

/** The semantics every bus adapter must keep (docs/architecture.md §5). Each adapter's test file calls this once. */
export function busContract(adapter: string, createFixture: () => Promise<BusFixture>): void {
  describe(`bus contract: ${adapter}`, () => {
    let fixture: BusFixture;
    let current: Bus;

    beforeAll(async () => {
      fixture = await createFixture();
      current = fixture.bus;
    });
    afterAll(async () => {
      await fixture?.dispose();
    });

    const context: BusContractContext = {
      bus: {
        publish: (...args) => current.publish(...args),
        consume: (...args) => current.consume(...args),
        deadLetters: (...args) => current.deadLetters(...args),
        deadLetter: (...args) => current.deadLetter(...args),
        removeDeadLetter: (...args) => current.removeDeadLetter(...args),
        pending: (durable) => current.pending(durable),
        close: () => current.close(),
      },
      fixture: () => fixture,
      restart: async () => {
        current = await fixture.restart();
      },
    };
    deliveryContract(context);
    settlementContract(context);
    pendingContract(context);
    deadLettersContract(context);
  });
}
