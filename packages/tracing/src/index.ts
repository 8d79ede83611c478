export { startTracing, tracesUrl, type Tracing, type TracingOptions } from "./startTracing.js";
