import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { modeIndependentE2e, modeIndependentInt } from "./scripts/modeIndependentFiles.mjs";

// Workspace packages resolve to their TypeScript sources through the `source` export condition, so tests
// run on a clean clone without a build.
const shared = {
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
};
const ignored = ["**/node_modules/**", "**/dist/**"];
// Test files of a worker share their imported modules (no test mocks a module or leaves a global changed):
// evaluating them again for every file was a third of the int tier's CPU.
const isolate = false;

/**
 * The crash tests (server mode only) wait on one email in flight, kills and restarts, so their time is
 * latency, and latency on two cores is what the other files leave. `npm test` runs them alone, after the
 * other server-mode files (TIDINGS_TEST_CRASH=none, then only); a plain `vitest run` runs them last. The
 * dependency restart test (`*RestartCrash`) goes after the other crash tests: it stops and starts database and
 * NATS servers (its own) under every role at once, the heaviest of them. The doctor's NATS outage
 * (`doctorNatsDownCrash`) goes very last, as issue 26 asks of the test that stops a service under the install.
 */
class CrashTestsLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) =>
      file.moduleId.endsWith("/doctorNatsDownCrash.e2e.test.ts")
        ? 3
        : file.moduleId.endsWith("RestartCrash.e2e.test.ts")
          ? 2
          : file.moduleId.endsWith("Crash.e2e.test.ts")
            ? 1
            : 0;
    return [0, 1, 2, 3].flatMap((r) => sorted.filter((file) => rank(file) === r));
  }
}
const crashTests = "test/e2e/**/*Crash.e2e.test.ts";
const crashOnly = process.env.TIDINGS_TEST_CRASH === "only";
// `npm test` sets TIDINGS_TEST_EMBEDDED=mode-dependent on its embedded tier when the server tier runs too
// (scripts/modeIndependentFiles.mjs says which files and why).
const modeDependentOnly = process.env.TIDINGS_TEST_EMBEDDED === "mode-dependent";
const leftToServerMode = modeDependentOnly ? modeIndependentE2e : [];
const intLeftToServerMode = modeDependentOnly ? modeIndependentInt : [];
const e2eFiles = crashOnly
  ? { include: [crashTests], exclude: ignored }
  : {
      include: ["test/e2e/**/*.e2e.test.ts"],
      exclude: [...ignored, ...leftToServerMode, ...(process.env.TIDINGS_TEST_CRASH === "none" ? [crashTests] : [])],
    };

/**
 * Embedded files each have a PGlite of their own and are CPU-bound, and `npm test` runs them beside the
 * server-mode tiers: two at a time, since three on two cores beside those (and a CPU hog) starved one
 * file's start-up past its two-minute hook.
 * Server-mode files share one PostgreSQL cluster and its 100 connections, which one e2e server (api,
 * projector, sagas) takes a third of: `npm test` runs the int and the e2e project side by side, one file
 * each. The cluster's xmin horizon is cluster-wide, so a test reading `$all` right after an append waits
 * for it to show (settledWrites, docs/architecture.md §4).
 */
const workers = process.env.TIDINGS_TEST_MODE === "server" ? 1 : 2;

export default defineConfig({
  test: {
    sequence: { sequencer: CrashTestsLast },
    maxWorkers: workers,
    projects: [
      // Unit tests wait on nothing but the CPU, which `npm test` gives them at nice 10 beside two busy tiers:
      // an RSA-2048 key, a second alone, once took 5 s there.
      {
        ...shared,
        test: {
          name: "unit",
          isolate,
          include: ["**/*.test.ts"],
          exclude: [...ignored, "**/*.int.test.ts", "**/*.e2e.test.ts"],
          testTimeout: 30_000,
          // A unit file's hook that builds the api app (every plugin, the OpenAPI document) took over 10 s, the
          // default, at a load of 17 on two cores.
          hookTimeout: 60_000,
        },
      },
      // An int file's hooks build its stores and projections (a PGlite, migrations): once more than 60 s on
      // a slow machine with both tiers running. One embedded event-store integrity test took 126 s beside a
      // CPU hog and the other tiers, where its whole file takes 49 s on a quiet machine.
      {
        ...shared,
        test: {
          name: "int",
          isolate,
          include: ["**/*.int.test.ts"],
          exclude: [...ignored, ...intLeftToServerMode],
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
      // An e2e file's beforeAll starts a whole server, and sometimes a browser: 20 s alone for an embedded one,
      // over 120 s beside the crash tier, the server tiers and a CPU hog on two cores. A test waits for what the
      // sagas do, which such a machine makes minutes of: a test that fails, fails on what it asserts.
      // eventsource-parser (the MCP SDK's client) publishes its TypeScript sources under the `source` condition
      // too: inlined, vite compiles them instead of handing Node a `.ts` file.
      {
        ...shared,
        test: {
          name: "e2e",
          isolate,
          ...e2eFiles,
          testTimeout: 180_000,
          hookTimeout: 300_000,
          server: { deps: { inline: ["@modelcontextprotocol/sdk", "eventsource-parser"] } },
        },
      },
    ],
  },
});
