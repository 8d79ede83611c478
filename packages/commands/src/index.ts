export * from "./handleCommand.js";
export * from "./reservation.js";
export * from "./loadState.js";
export * from "./domainHolding.js";
export * from "./changed.js";
export * from "./createClaiming.js";
export * from "./operationMetadata.js";
