export { freshSettings } from "./freshSettings.js";
export { seedMigratedDatabase } from "./migratedDataDir.js";
