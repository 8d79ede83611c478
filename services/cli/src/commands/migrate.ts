import { migrate } from "@tidings/postgres";
import { API_KEY_USAGE_COMPONENT, apiKeyUsageMigrations, apiMigrations } from "@tidings/api";
import { checkpointMigrations } from "@tidings/projections";
import { automationMigrations, timerMigrations } from "@tidings/sagas";
import type { CliOutput } from "../cliOutput.js";
import type { Runtime } from "../runtime.js";

/**
 * `tidings migrate`: every schema this build needs. Opening the runtime migrates the event store and the
 * bus; the read database gets the checkpoint and api tables here. Projection tables are created by the
 * projector when it starts a version, since they are versioned by the projection, not by migrations.
 */
export async function migrateCommand(runtime: Runtime, out: CliOutput): Promise<number> {
  await migrateReadDatabase(runtime.database);
  out.out("schemas are up to date");
  return 0;
}

export async function migrateReadDatabase(database: Parameters<typeof migrate>[0]): Promise<void> {
  await migrate(database, "projections", checkpointMigrations);
  await migrate(database, "api", apiMigrations);
  await migrate(database, API_KEY_USAGE_COMPONENT, apiKeyUsageMigrations);
  await migrate(database, "timers", timerMigrations);
  await migrate(database, "automations", automationMigrations);
}
