import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

/**
 * In a fresh process (the built CLI), so that nothing another test loaded counts: the serving code's whole
 * import graph, then tracing started for a role as `serve` starts it. The OpenTelemetry SDK ships CommonJS,
 * so each of its modules loaded is in the require cache.
 */
const probe = `
import { createRequire } from "node:module";
import { trace } from "@opentelemetry/api";
import { createLogger, loadConfig } from "@tidings/core";
import "@tidings/cli";
import { startRoleTracing } from ${JSON.stringify(join(import.meta.dirname, "../dist/roleTracing.js"))};
const tracing = await startRoleTracing(loadConfig(process.env), "api", createLogger("silent"));
const span = trace.getTracer("probe").startSpan("probe");
const sdk = Object.keys(createRequire(import.meta.url).cache).filter((path) => /@opentelemetry[\\\\/](sdk-|exporter-|resources|otlp-)/.test(path));
await tracing?.shutdown();
console.log(JSON.stringify({ started: tracing !== undefined, recording: span.isRecording(), sdkModules: sdk.length }));
`;

async function probeWith(env: Record<string, string>) {
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", probe], {
    cwd: import.meta.dirname,
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "silent", ...env },
  });
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as { started: boolean; recording: boolean; sdkModules: number };
}

describe("tracing of a serving process (docs/operations.md, Traces)", () => {
  it("loads no SDK module and records nothing when OTEL_EXPORTER_OTLP_ENDPOINT is unset", async () => {
    expect(await probeWith({})).toEqual({ started: false, recording: false, sdkModules: 0 });
  });

  it("loads the SDK and records spans when OTEL_EXPORTER_OTLP_ENDPOINT is set", async () => {
    const probed = await probeWith({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" });
    expect(probed).toMatchObject({ started: true, recording: true });
    expect(probed.sdkModules).toBeGreaterThan(0);
  });
});
