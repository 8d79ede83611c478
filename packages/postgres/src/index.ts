export * from "./database.js";
export * from "./connectionLoss.js";
export * from "./undefinedTable.js";
export * from "./migrations.js";
export * from "./testDatabase.js";
export * from "./settledWrites.js";
export * from "./likeLiteral.js";
