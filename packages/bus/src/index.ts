export * from "./port.js";
export { subjectMatches } from "./subject.js";
export { createInProcessBus, type InProcessBusOptions } from "./inprocess/bus.js";
export { busMigrations } from "./inprocess/migrations.js";
export { createNatsBus, type NatsBusOptions } from "./nats/bus.js";
