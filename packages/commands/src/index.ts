export * from "./handleCommand.js";
export * from "./reservation.js";
