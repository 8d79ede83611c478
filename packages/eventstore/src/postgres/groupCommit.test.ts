import {
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from "kysely";
import { describe, expect, it } from "vitest";
import { aStreamId, events } from "../testing/contractBuilders.js";
import { GroupCommit } from "./groupCommit.js";

/** A database that answers every statement with `rows`, as a server speaking another version of append_set might. */
function answering(rows: unknown[]): Kysely<unknown> {
  const connection: DatabaseConnection = {
    executeQuery: async <R>() => ({ rows }) as QueryResult<R>,
    streamQuery: () => {
      throw new Error("not streamed");
    },
  };
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: async () => {},
    commitTransaction: async () => {},
    rollbackTransaction: async () => {},
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  return new Kysely({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
}

describe("group commit", () => {
  it("fails the appends of a set whose answer it cannot read, rather than leave their callers waiting", async () => {
    const commit = new GroupCommit(answering([{ ord: "1", outcome: 9, actual_revision: "-1" }]), { inFlight: 1, maxEvents: 100 });
    for (const immediate of [false, true]) {
      const appended = commit.append([{ streamId: aStreamId(), events: events(1), expectedRevision: "any" }], immediate);
      await expect(appended).rejects.toThrow("append_set outcome 9 is not a result");
    }
    await commit.idle();
  });
});
