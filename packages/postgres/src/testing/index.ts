export { testDatabaseForFile } from "./testDatabaseForFile.js";
