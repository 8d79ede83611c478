export * from "./scrape.js";
export * from "./prometheusText.js";
