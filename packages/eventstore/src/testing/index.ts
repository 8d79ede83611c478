export { holdableStore, type HoldableStore } from "./holdableStore.js";
