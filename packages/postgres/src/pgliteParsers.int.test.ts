import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PGlite } from "@electric-sql/pglite";
import { shareArrayParsers } from "./pgliteParsers.js";
import { testMode } from "./testDatabase.js";

// PGlite alone, whatever the tier's stores: one tier is enough, and the server tiers are npm test's longest path.
const embedded = testMode() === "embedded";
if (!embedded) console.warn("shareArrayParsers skipped in server mode: it tests PGlite alone; it runs with TIDINGS_TEST_MODE=embedded");

// One row of every kind of value the read models and stores select, scalars and arrays alike.
const everyKind = `SELECT 1::int4 AS int4, 9007199254740991::int8 AS int8, true AS bool, 1.5::float8 AS float8,
  '12.50'::numeric AS numeric, 'a'::text AS text, 'b'::varchar AS varchar, '\\x0102'::bytea AS bytea,
  '2026-01-02T03:04:05.678Z'::timestamptz AS timestamptz, '2026-01-02'::date AS date,
  '{"a":[1,{"b":null}]}'::jsonb AS jsonb, '{"c":2}'::json AS json,
  '00000000-0000-4000-8000-000000000001'::uuid AS uuid, '1 hour'::interval AS interval,
  ARRAY['x','y,z','"q"']::text[] AS texts, ARRAY[1,2]::int4[] AS int4s, ARRAY[3,4]::int8[] AS int8s,
  ARRAY[true,false] AS bools, ARRAY['00000000-0000-4000-8000-000000000002']::uuid[] AS uuids,
  ARRAY['2026-01-02T03:04:05Z']::timestamptz[] AS timestamptzs, ARRAY['{"d":3}']::jsonb[] AS jsonbs,
  ARRAY[NULL, 'w']::text[] AS with_null, ARRAY[ARRAY[1,2],ARRAY[3,4]] AS nested, '{}'::text[] AS empty`;

describe.skipIf(!embedded)("shareArrayParsers", () => {
  let stock: PGlite;
  let shared: PGlite;
  beforeAll(() => {
    stock = new PGlite();
    shared = new PGlite();
  });
  afterAll(async () => {
    await Promise.all([stock.close(), shared.close()]);
  });

  it("leaves the instance's own parser table empty and every value parsed as PGlite's own table parses it", async () => {
    // given an instance as PGlite starts it, and one whose array parsers moved to the shared table
    await Promise.all([stock.waitReady, shared.waitReady]);
    expect(Object.keys(stock.parsers).length).toBeGreaterThan(100);
    await shareArrayParsers(shared);

    // when both select every kind of value
    const [before, after] = await Promise.all([stock.query(everyKind), shared.query(everyKind)]);

    // then nothing is left to copy per query, and the rows are the same
    expect(Object.keys(shared.parsers)).toEqual([]);
    expect(after.rows).toEqual(before.rows);
    const row = after.rows[0] as Record<string, unknown>;
    expect(row.timestamptzs).toEqual([new Date("2026-01-02T03:04:05Z")]);
    expect(row.jsonbs).toEqual([{ d: 3 }]);
    expect(row.uuids).toEqual(["00000000-0000-4000-8000-000000000002"]);
    expect(row.texts).toEqual(["x", "y,z", '"q"']);
  });
});
