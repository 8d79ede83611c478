export * from "./decider.js";
export * from "./team/events.js";
export * from "./team/decider.js";
export * from "./apikey/events.js";
export * from "./apikey/decider.js";
export * from "./email/events.js";
export * from "./email/decider.js";
export * from "./template/placeholders.js";
