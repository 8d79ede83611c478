export { holdableStore, type HoldableStore } from "./holdableStore.js";
export { testEventStore, testStoreDatabase, type TestStoreDatabase } from "./testEventStore.js";
export { refusingAppends, type RefusingAppends } from "./refusingAppends.js";
export { integrityContract, type IntegrityFixture, type Tampering } from "./contractIntegrity.js";
