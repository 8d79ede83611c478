import { Writable } from "node:stream";
import { pino, type Logger } from "pino";
import { describe, expect, it } from "vitest";
import { newId, redactedPaths } from "@tidings/core";
import { requestChildLogger } from "./requestLogger.js";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const logger = pino({ level: "info", base: undefined, timestamp: false, redact: { paths: redactedPaths, censor: "[redacted]" } }, stream);
  return { logger, lines };
}

describe("requestChildLogger", () => {
  it("writes the lines pino's own child writes, redaction and nested children included", () => {
    const { logger, lines } = capture();
    const requestId = newId();
    for (const child of [logger.child({ requestId }, {}), requestChildLogger(logger, { requestId }, {})]) {
      child.info({ token: "secret", nested: { authorization: "Bearer x" }, n: 1 }, "request completed");
      child.child({ step: "inner" }).warn("inner line");
      expect((child as Logger).isLevelEnabled("debug")).toBe(false);
    }
    expect(lines).toHaveLength(4);
    expect(lines[2]).toEqual(lines[0]);
    expect(lines[3]).toEqual(lines[1]);
    expect(lines[0]).toMatchObject({ requestId, token: "[redacted]", nested: { authorization: "[redacted]" } });
    expect(lines[1]).toMatchObject({ requestId, step: "inner" });
  });

  it("leaves other bindings and options to pino", () => {
    const { logger, lines } = capture();
    requestChildLogger(logger, { requestId: "not a uuid", "*": 1 }, {}).info("a");
    requestChildLogger(logger, { requestId: newId() }, { level: "warn" }).info("dropped");
    expect(lines).toEqual([{ level: 30, requestId: "not a uuid", "*": 1, msg: "a" }]);
  });
});
