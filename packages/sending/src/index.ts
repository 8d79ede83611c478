export * from "./queueEmail.js";
export * from "./textPart.js";
