export * from "./queueEmail.js";
export * from "./textPart.js";
export * from "./suppressedRecipients.js";
