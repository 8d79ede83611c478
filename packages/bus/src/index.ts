export * from "./port.js";
export { subjectMatches } from "./subject.js";
export { createInProcessBus, type InProcessBusOptions } from "./inprocess/bus.js";
export { busMigrations } from "./inprocess/migrations.js";
export { createNatsBus, type NatsBusOptions } from "./nats/bus.js";
export { startForwarder, type Forwarder, type ForwarderOptions } from "./forwarder.js";
export { forwarderMigrations } from "./forwarderCheckpoint.js";
export { eventSubject, forwardedEventSubject, fromForwardedEvent, toForwardedEvent, type ForwardedEvent } from "./forwardedEvent.js";
export { consumeEvents, type ConsumedEvent, type EventConsumerOptions } from "./eventConsumer.js";
