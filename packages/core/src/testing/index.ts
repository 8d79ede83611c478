export { deferred } from "./deferred.js";
