import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatPosition, type Position } from "@tidings/eventstore";
import { createTestDatabase, testMode, type TestDatabase } from "@tidings/postgres";
import { checkpointMover } from "./checkpointMoves.js";
import { CheckpointMovedError, ensureCheckpointTable, readCheckpoints } from "./checkpoints.js";

const at = (commit: number): Position => ({ commit: BigInt(commit), prepare: BigInt(commit) });

describe(`checkpoint moves shared by the projections of a batch (${testMode() === "server" ? "PostgreSQL" : "PGlite"})`, () => {
  let test: TestDatabase;
  const names = ["moves_a", "moves_b", "moves_c"];

  beforeAll(async () => {
    test = await createTestDatabase();
    await ensureCheckpointTable(test.database);
    for (const name of names)
      await sql`INSERT INTO projection_checkpoints (name, state, version, position, tables) VALUES (${name}, 'live', 1, ${formatPosition(at(10))}, '[]'::jsonb)`.execute(
        test.database.db,
      );
  });
  afterAll(() => test?.dispose());

  it("moves each checkpoint asked in one turn, and fails only the one that had moved under its runner", async () => {
    const move = checkpointMover(test.database);
    const target = (name: string) => ({ name, state: "live" as const, version: 1 });
    const results = await Promise.allSettled([
      move({ target: target("moves_a"), from: at(10), to: at(20) }),
      move({ target: target("moves_b"), from: at(10), to: at(20) }),
      move({ target: target("moves_c"), from: at(5), to: at(20) }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
    expect((results[2] as PromiseRejectedResult).reason).toBeInstanceOf(CheckpointMovedError);
    const positions = Object.fromEntries((await readCheckpoints(test.database.db, names)).map((c) => [c.name, formatPosition(c.position)]));
    expect(positions).toEqual({ moves_a: formatPosition(at(20)), moves_b: formatPosition(at(20)), moves_c: formatPosition(at(10)) });
  });
});
