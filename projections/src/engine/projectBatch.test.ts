import { describe, expect, it } from "vitest";
import type { RecordedEvent } from "@tidings/eventstore";
import { projectBatch } from "./projectBatch.js";
import type { Projection } from "./projection.js";

const anEvent = (type: string, prepare: bigint): RecordedEvent => ({
  id: `00000000-0000-0000-0000-${prepare.toString().padStart(12, "0")}`,
  type,
  data: {},
  metadata: {},
  streamId: "thing-1",
  revision: prepare - 1n,
  position: { commit: 1n, prepare },
  createdAt: new Date(0),
});

describe("projectBatch", () => {
  const seen: string[] = [];
  const projection: Projection = {
    name: "log",
    version: 1,
    tables: { seen: { columns: { type: { type: "text" }, count: { type: "bigint", merge: "add" } }, primaryKey: ["type"] } },
    handlers: {
      ThingCreated(event, context) {
        seen.push(`own:${event.type}`);
        context.upsert("seen", { type: event.type, count: 1 });
      },
      "*"(event) {
        seen.push(`any:${event.type}`);
      },
    },
  };

  it("runs the type's handler, then the catch-all, for each event in order", () => {
    seen.length = 0;
    const writes = projectBatch(projection, [anEvent("ThingCreated", 1n), anEvent("ThingRenamed", 2n), anEvent("ThingCreated", 3n)]);
    expect(seen).toEqual(["own:ThingCreated", "any:ThingCreated", "any:ThingRenamed", "own:ThingCreated", "any:ThingCreated"]);
    expect(writes.flatMap((w) => w.rows.map((r) => r.upsert))).toEqual([{ type: "ThingCreated", count: 2 }]);
  });

  it("produces no writes for events no handler writes about", () => {
    const quiet: Projection = { ...projection, handlers: { ThingCreated: projection.handlers.ThingCreated! } };
    expect(projectBatch(quiet, [anEvent("ThingRenamed", 1n), anEvent("ThingDeleted", 2n)])).toEqual([]);
  });
});
