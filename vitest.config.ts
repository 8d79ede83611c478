import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

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
 * The crash tests (server mode only) go last. They wait on one email in flight, kills and restarts, so
 * their time is latency, and latency on two cores is what the embedded tier, running beside the server
 * tier, leaves: run first, they took 267 s under it; run last, they mostly have the machine to themselves.
 */
class CrashTestsLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const crash = (file: TestSpecification) => file.moduleId.endsWith("Crash.e2e.test.ts");
    return [...sorted.filter((file) => !crash(file)), ...sorted.filter(crash)];
  }
}

export default defineConfig({
  test: {
    sequence: { sequencer: CrashTestsLast },
    // Embedded files each have a PGlite of their own and mostly wait on timers and sockets, so three at a
    // time fit two cores. Server-mode files share one PostgreSQL cluster, whose xmin horizon is cluster-
    // wide: one file's open transaction holds back `$all` reads in another file's database, so tests that
    // expect an append to be readable at once would flake. They run one at a time.
    maxWorkers: process.env.TIDINGS_TEST_MODE === "server" ? 1 : 3,
    projects: [
      // Unit tests wait on nothing but the CPU, which `npm test` gives them at nice 10 beside two busy tiers:
      // an RSA-2048 key, a second alone, once took 5 s there.
      { ...shared, test: { name: "unit", isolate, include: ["**/*.test.ts"], exclude: [...ignored, "**/*.int.test.ts", "**/*.e2e.test.ts"], testTimeout: 30_000 } },
      { ...shared, test: { name: "int", isolate, include: ["**/*.int.test.ts"], exclude: ignored, testTimeout: 60_000, hookTimeout: 60_000 } },
      { ...shared, test: { name: "e2e", isolate, include: ["test/e2e/**/*.e2e.test.ts"], exclude: ignored, testTimeout: 60_000, hookTimeout: 60_000 } },
    ],
  },
});
