export * from "./prometheusMetrics.js";
export * from "./metricsServer.js";
export * from "./bearerToken.js";
