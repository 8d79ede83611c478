import { defineConfig } from "vitest/config";

// Workspace packages resolve to their TypeScript sources through the `source` export condition, so tests
// run on a clean clone without a build.
const shared = {
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
};
const ignored = ["**/node_modules/**", "**/dist/**"];

export default defineConfig({
  test: {
    // Integration and e2e files spend most of their time waiting on PostgreSQL, NATS, SMTP and timers, so
    // three files at a time fit two cores; one per core left the tiers running one file after another.
    maxWorkers: 3,
    projects: [
      { ...shared, test: { name: "unit", include: ["**/*.test.ts"], exclude: [...ignored, "**/*.int.test.ts", "**/*.e2e.test.ts"] } },
      { ...shared, test: { name: "int", include: ["**/*.int.test.ts"], exclude: ignored, testTimeout: 60_000, hookTimeout: 60_000 } },
      { ...shared, test: { name: "e2e", include: ["test/e2e/**/*.e2e.test.ts"], exclude: ignored, testTimeout: 60_000, hookTimeout: 60_000 } },
    ],
  },
});
