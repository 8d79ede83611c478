export * from "./config.js";
export * from "./crypto.js";
export * from "./dataDir.js";
export * from "./errors.js";
export * from "./ids.js";
export * from "./logger.js";
export * from "./timestamp.js";
export * from "./privateAddresses.js";
