export { holdableStore, type HoldableStore } from "./holdableStore.js";
export { testEventStore } from "./testEventStore.js";
