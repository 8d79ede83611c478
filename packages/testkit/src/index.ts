export * from "./dnsResponder.js";
export * from "./smtpSink.js";
export * from "./testCertificate.js";
export * from "./freePort.js";
