import { sql, type Kysely } from "kysely";
import type { Database } from "@tidings/postgres";
import { comparePositions, formatPosition, START, type Position } from "@tidings/eventstore";
import { CheckpointMovedError, notifyCheckpoint, readCheckpoints } from "./checkpoints.js";
import type { Projection } from "./projection.js";
import {
  createIndexesSql,
  createTableSql,
  createViewSql,
  dropTableSql,
  dropViewSql,
  physicalTable,
  physicalTables,
  renameTableSql,
} from "./readModelTables.js";

/**
 * How a version's tables come to serve. A projection seen for the first time goes live at once on empty
 * tables: there is nothing older to serve meanwhile. Any later build (a version bump, or a rebuild of the
 * live version) fills shadow tables from the first event while the live ones keep serving, and
 * `switchToShadow` swaps them in one transaction.
 */

async function run(trx: Kysely<unknown>, statements: string[]): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(trx);
}

/** Creates the tables and views of a projection that has no live version, with its checkpoint at START. */
export async function createLive(database: Database, projection: Projection): Promise<void> {
  const tables = Object.keys(projection.tables);
  await database.db.transaction().execute(async (trx) => {
    // Tables left behind by deleted checkpoints would hold rows the replay is about to add again.
    await run(
      trx,
      Object.entries(projection.tables).flatMap(([table, definition]) => {
        const physical = physicalTable(table, projection.version, false);
        return [
          dropViewSql(table),
          dropTableSql(physical),
          createTableSql(physical, definition),
          ...createIndexesSql(physical, definition),
          createViewSql(table, physical),
        ];
      }),
    );
    await sql`
      INSERT INTO projection_checkpoints (name, state, version, position, tables)
      VALUES (${projection.name}, 'live', ${projection.version}, ${formatPosition(START)}, ${JSON.stringify(tables)}::jsonb)`.execute(trx);
    await notifyCheckpoint({ name: projection.name, state: "live", version: projection.version, position: START }).execute(trx);
  });
}

/**
 * Starts a build of the projection's current version into empty shadow tables, replacing any build
 * left unfinished (possibly of another version). Returns the position the build starts after.
 */
export async function prepareShadow(database: Database, projection: Projection): Promise<Position> {
  await database.db.transaction().execute(async (trx) => {
    const [previous] = (await readCheckpoints(trx, [projection.name], true)).filter((c) => c.state === "rebuilding");
    const leftovers = previous ? previous.tables.map((t) => physicalTable(t, previous.version, true)) : [];
    const shadow = physicalTables(projection, projection.version, true);
    await run(trx, [
      ...[...new Set([...leftovers, ...shadow.values()])].map(dropTableSql),
      ...Object.entries(projection.tables).map(([table, definition]) => createTableSql(shadow.get(table)!, definition)),
    ]);
    await sql`DELETE FROM projection_checkpoints WHERE name = ${projection.name} AND state = 'rebuilding'`.execute(trx);
    await sql`
      INSERT INTO projection_checkpoints (name, state, version, position, tables)
      VALUES (${projection.name}, 'rebuilding', ${projection.version}, ${formatPosition(START)},
              ${JSON.stringify(Object.keys(projection.tables))}::jsonb)`.execute(trx);
  });
  return START;
}

export async function indexShadow(database: Database, projection: Projection): Promise<void> {
  const shadow = physicalTables(projection, projection.version, true);
  await database.db.transaction().execute(async (trx) => {
    await run(
      trx,
      Object.entries(projection.tables).flatMap(([table, definition]) => createIndexesSql(shadow.get(table)!, definition)),
    );
  });
}

/**
 * Makes the shadow build at `position` the live version, in one transaction: the views move to the new
 * tables, the old tables go, and the live checkpoint becomes the build's. Readers see the old version or
 * the new one, never a mix. When the live version has advanced past the build (a runner keeps it going
 * during a rebuild of the same version) it returns "behind" with the live position and changes nothing: the build must first
 * catch up, or the switch would move readers back in time.
 */
export async function switchToShadow(
  database: Database,
  projection: Projection,
  position: Position,
): Promise<{ outcome: "switched" } | { outcome: "behind"; live: Position }> {
  return database.db.transaction().execute(async (trx) => {
    const rows = await readCheckpoints(trx, [projection.name], true);
    const build = rows.find((c) => c.state === "rebuilding");
    const live = rows.find((c) => c.state === "live");
    if (!build || build.version !== projection.version || comparePositions(build.position, position) !== 0) {
      throw new CheckpointMovedError(projection.name, "rebuilding");
    }
    if (live && comparePositions(live.position, position) > 0) return { outcome: "behind" as const, live: live.position };
    const retired = live ? live.tables.map((t) => ({ table: t, physical: physicalTable(t, live.version, false) })) : [];
    await run(trx, [
      ...retired.flatMap(({ table, physical }) => [dropViewSql(table), dropTableSql(physical)]),
      ...Object.entries(projection.tables).flatMap(([table, definition]) => {
        const final = physicalTable(table, projection.version, false);
        return [
          dropViewSql(table),
          ...renameTableSql(physicalTable(table, projection.version, true), final, definition),
          createViewSql(table, final),
        ];
      }),
    ]);
    await sql`DELETE FROM projection_checkpoints WHERE name = ${projection.name} AND state = 'live'`.execute(trx);
    await sql`
      UPDATE projection_checkpoints SET state = 'live', updated_at = now()
       WHERE name = ${projection.name} AND state = 'rebuilding'`.execute(trx);
    await notifyCheckpoint({ name: projection.name, state: "live", version: projection.version, position }).execute(trx);
    return { outcome: "switched" as const };
  });
}
