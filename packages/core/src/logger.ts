import { pino, type Logger, type LoggerOptions } from "pino";

export type { Logger };

/** Paths whose values never reach a log line, whatever logs them. */
export const redactedPaths = [
  "authorization",
  "*.authorization",
  "req.headers.authorization",
  "token",
  "*.token",
  "secret",
  "*.secret",
  "signing_secret",
  "*.signing_secret",
];

export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  return pino({
    level,
    base: undefined,
    redact: { paths: redactedPaths, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
    ...options,
  });
}
