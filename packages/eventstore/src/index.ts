export * from "./port.js";
export * from "./postgres/index.js";
export * from "./open.js";
export * from "./instrumentedEventStore.js";
export { traceEventStore } from "./tracedEventStore.js";
export * from "./lag.js";
export { isWithheld, withoutData } from "./withheldData.js";
export { subscriptionBatches } from "./subscriptionBatches.js";
export * from "./integrity/index.js";
