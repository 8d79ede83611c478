import { pino, stdSerializers, type Logger, type LoggerOptions } from "pino";

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
    // Database errors carry the failed statement's parameters, which can hold event data and secrets.
    serializers: { err: errorWithoutParameters },
    ...options,
  });
}

export function errorWithoutParameters(error: Error): Record<string, unknown> {
  const serialized = stdSerializers.err(error) as unknown as Record<string, unknown>;
  const { params: _params, parameters: _parameters, query: _query, ...rest } = serialized;
  return rest;
}
