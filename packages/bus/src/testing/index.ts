export { natsTestStreams, openTestBus, type NatsTestStreams } from "./testBus.js";
