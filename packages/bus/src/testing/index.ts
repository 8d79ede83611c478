export { natsTestStreams, openTestBus, type NatsTestStreams } from "./testBus.js";
export { recordingConsumer, waitUntil, type RecordingConsumer } from "../recordingConsumer.js";
