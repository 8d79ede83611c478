export * from "./timers/index.js";
