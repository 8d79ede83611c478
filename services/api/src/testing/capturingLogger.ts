import { Writable } from "node:stream";
import { pino } from "pino";
import { redactedPaths, type Logger } from "@tidings/core";

/** A real pino logger whose lines a test can read back, to check what reaches the logs. */
export function capturingLogger(level = "info"): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const captured: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n")) if (line) captured.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = pino({ level, base: undefined, redact: { paths: redactedPaths, censor: "[redacted]" } }, stream);
  return { logger, lines: () => captured };
}
