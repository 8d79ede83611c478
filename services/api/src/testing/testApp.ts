import { afterAll, beforeAll } from "vitest";
import { buildTransportApp, type ApiInstance, type TransportDeps } from "../app.js";
import { capturingLogger } from "./capturingLogger.js";

/**
 * The HTTP layer as `tidings serve` builds it, without auth and resources, for tests of wire behaviour
 * with routes of their own. Tests of the real API build it with `createTestServices` (testServices.ts).
 */
export function buildTestApp(extra: Partial<TransportDeps> = {}): ApiInstance {
  return buildTransportApp({ logger: capturingLogger("warn").logger, readiness: { eventStore: async () => {} }, ...extra });
}

/** A test file's app (`buildTestApp`), ready from the file's `beforeAll` on, with what it logged. */
export interface TestAppFile {
  readonly app: ApiInstance;
  /** The app's log lines, from `info` up. */
  lines(): Record<string, unknown>[];
}

/** `buildTestApp(extra)` for a test file: built and made ready in its `beforeAll`, closed in its `afterAll` (this registers both). */
export function testAppForFile(extra: Partial<TransportDeps> = {}): TestAppFile {
  const { logger, lines } = capturingLogger();
  let app: ApiInstance | undefined;
  beforeAll(async () => {
    app = buildTestApp({ logger, ...extra });
    await app.ready();
  });
  afterAll(() => app?.close());
  return {
    get app() {
      if (!app) throw new Error("the test app is built in beforeAll");
      return app;
    },
    lines,
  };
}
