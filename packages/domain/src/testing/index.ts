/** Test builders shared by the packages that test against domain events. */
export { anEmailContent } from "./anEmailContent.js";
export { aDomainSettings, testRecordTargets } from "./domainBuilders.js";
export * as personalEvents from "./personalEvents.js";
