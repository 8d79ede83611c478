/** Test builders shared by the packages that test against domain events. */
export { anEmailContent } from "./email/anEmailContent.js";
