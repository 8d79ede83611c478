import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatPosition, type Position } from "@tidings/eventstore";
import { createTestDatabase, testMode, type TestDatabase } from "@tidings/postgres";
import { batchCommitter } from "./checkpointMoves.js";
import { CheckpointMovedError, ensureCheckpointTable, readCheckpoints } from "./checkpoints.js";

const at = (commit: number): Position => ({ commit: BigInt(commit), prepare: BigInt(commit) });
const target = (name: string) => ({ name, state: "live" as const, version: 1 });
const insertNote = (text: string) => ({ text: "INSERT INTO commit_notes (note) VALUES ($1)", params: [text] });

describe(`batches of the projections of one $all batch, committed together (${testMode() === "server" ? "PostgreSQL" : "PGlite"})`, () => {
  let test: TestDatabase;
  const names = ["moves_a", "moves_b", "moves_c", "writes_a", "writes_b", "writes_c", "fails_a", "fails_b"];

  beforeAll(async () => {
    test = await createTestDatabase();
    await ensureCheckpointTable(test.database);
    await sql`CREATE TABLE commit_notes (note text PRIMARY KEY)`.execute(test.database.db);
    for (const name of names)
      await sql`INSERT INTO projection_checkpoints (name, state, version, position, tables) VALUES (${name}, 'live', 1, ${formatPosition(at(10))}, '[]'::jsonb)`.execute(
        test.database.db,
      );
  });
  afterAll(() => test?.dispose());

  const positions = async (of: string[]) =>
    Object.fromEntries((await readCheckpoints(test.database.db, of)).map((c) => [c.name, formatPosition(c.position)]));
  const notes = async () =>
    (await sql<{ note: string }>`SELECT note FROM commit_notes ORDER BY note`.execute(test.database.db)).rows.map((r) => r.note);

  /**
   * Commits the batches of three projections in one turn, `${prefix}_a` to `_c`, each writing its own
   * statements; the last one's runner read from 5 while its checkpoint stood at 10. Only that one fails,
   * with the checkpoint where it was.
   */
  async function commitWithTheLastMoved(prefix: string, statements: ReturnType<typeof insertNote>[][]) {
    const commit = batchCommitter(test.database);
    const results = await Promise.allSettled(
      ["a", "b", "c"].map((suffix, i) =>
        commit({ target: target(`${prefix}_${suffix}`), from: at(suffix === "c" ? 5 : 10), to: at(20), statements: statements[i]! }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
    expect((results[2] as PromiseRejectedResult).reason).toBeInstanceOf(CheckpointMovedError);
    expect(await positions([`${prefix}_a`, `${prefix}_b`, `${prefix}_c`])).toEqual({
      [`${prefix}_a`]: formatPosition(at(20)),
      [`${prefix}_b`]: formatPosition(at(20)),
      [`${prefix}_c`]: formatPosition(at(10)),
    });
  }

  it("moves each checkpoint asked in one turn, and fails only the one that had moved under its runner", async () => {
    await commitWithTheLastMoved("moves", [[], [], []]);
  });

  it("writes the batches whose checkpoints moved, and none of the one whose checkpoint had moved under it", async () => {
    await commitWithTheLastMoved("writes", [[insertNote("a")], [], [insertNote("c")]]);
    expect(await notes()).toEqual(["a"]);
  });

  it("keeps a failing write to its own projection: the others commit, it keeps its checkpoint and writes nothing", async () => {
    const commit = batchCommitter(test.database);
    const results = await Promise.allSettled([
      commit({ target: target("fails_a"), from: at(10), to: at(20), statements: [insertNote("from fails_a")] }),
      // A duplicate key: this statement fails in the shared transaction, and again alone.
      commit({ target: target("fails_b"), from: at(10), to: at(20), statements: [insertNote("b"), insertNote("b")] }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
    expect(await positions(["fails_a", "fails_b"])).toEqual({ fails_a: formatPosition(at(20)), fails_b: formatPosition(at(10)) });
    expect(await notes()).toEqual(["a", "from fails_a"]);
  });
});
