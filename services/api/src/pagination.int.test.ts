import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { TidingsError, newId } from "@tidings/core";
import { createTestDatabase, type TestDatabase } from "@tidings/postgres";
import { listPage, type PageRequest } from "./pagination.js";

let test: TestDatabase;
/** Team `a`'s rows, newest first, as the list must return them. */
let expected: string[];

interface Row {
  id: string;
  name: string;
}

const db = () => test.database.tables<{ items: Row & { team: string; created_at: Date } }>();
const teamItems = (team: string) => db().selectFrom("items").select(["id", "name"]).where("team", "=", team);
const page = (request: PageRequest, team = "a") => listPage(teamItems(team), request);

async function insert(team: string, createdAt: string, name: string): Promise<string> {
  const id = newId();
  await sql`INSERT INTO items (id, team, created_at, name) VALUES (${id}, ${team}, ${createdAt}::timestamptz, ${name})`.execute(db());
  return id;
}

beforeAll(async () => {
  test = await createTestDatabase();
  await test.database.exec(
    `CREATE TABLE items (id uuid PRIMARY KEY, team text NOT NULL, created_at timestamptz NOT NULL, name text NOT NULL)`,
  );
  // Rows 0-9 lie within one millisecond, a microsecond apart: a cursor that went through a JS Date would
  // lose their order. Rows 10-14 share one timestamp: only the id orders them.
  for (let i = 0; i < 25; i++) {
    const at =
      i < 10
        ? `2025-01-01 00:00:00.000${String(i).padStart(3, "0")}+00`
        : i < 15
          ? "2025-01-02 00:00:00+00"
          : `2025-01-03 00:00:${String(i).padStart(2, "0")}+00`;
    await insert("a", at, `a${i}`);
  }
  for (let i = 0; i < 5; i++) await insert("b", `2025-01-01 00:00:0${i}+00`, `b${i}`);
  const rows = await sql<{ id: string }>`SELECT id FROM items WHERE team = 'a' ORDER BY created_at DESC, id DESC`.execute(db());
  expected = rows.rows.map((r) => r.id);
});
afterAll(() => test?.dispose());

async function walk(direction: "after" | "before", limit: number, start?: string): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor = start;
  let pages = 0;
  for (;;) {
    const result = await page({ limit, [direction]: cursor });
    pages++;
    const pageIds = result.data.map((r) => r.id);
    if (direction === "after") ids.push(...pageIds);
    else ids.unshift(...pageIds);
    if (!result.has_more) return { ids, pages };
    cursor = direction === "after" ? pageIds.at(-1) : pageIds[0];
  }
}

describe("listPage", () => {
  it("returns the newest items first, 20 when no limit is given, in the list envelope", async () => {
    const first = await page({});
    expect(first.object).toBe("list");
    expect(first.has_more).toBe(true);
    expect(first.data.map((r) => r.id)).toEqual(expected.slice(0, 20));
    expect(Object.keys(first.data[0]!).sort()).toEqual(["id", "name"]);
  });

  it("walks every item exactly once with `after`, through microsecond and tied timestamps", async () => {
    const { ids, pages } = await walk("after", 4);
    expect(ids).toEqual(expected);
    expect(pages).toBe(7);
  });

  it("walks back to the newest item with `before`, each page still newest first", async () => {
    const last = expected.at(-1)!;
    const { ids } = await walk("before", 3, last);
    expect(ids).toEqual(expected.slice(0, -1));
    const justBefore = await page({ limit: 2, before: expected[12]! });
    expect(justBefore.data.map((r) => r.id)).toEqual(expected.slice(10, 12));
    expect(justBefore.has_more).toBe(true);
  });

  it("excludes the cursor item and reports no more at the end", async () => {
    const tail = await page({ limit: 5, after: expected[21]! });
    expect(tail.data.map((r) => r.id)).toEqual(expected.slice(22));
    expect(tail.has_more).toBe(false);
    const end = await page({ after: expected.at(-1)! });
    expect(end).toEqual({ object: "list", has_more: false, data: [] });
  });

  it("keeps later pages stable while items are inserted between requests", async () => {
    const first = await page({ limit: 5 });
    const fresh = await insert("a", "2030-01-01 00:00:00+00", "fresh");
    try {
      const second = await page({ limit: 5, after: first.data.at(-1)!.id });
      expect(second.data.map((r) => r.id)).toEqual(expected.slice(5, 10));
      const newer = await page({ limit: 5, before: first.data[0]!.id });
      expect(newer.data.map((r) => r.id)).toEqual([fresh]);
    } finally {
      await sql`DELETE FROM items WHERE id = ${fresh}`.execute(db());
    }
  });

  it("refuses a cursor that names no item the caller can see, such as another team's", async () => {
    const otherTeam = (await page({}, "b")).data[0]!.id;
    const error = await page({ after: otherTeam }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TidingsError);
    expect(error).toMatchObject({ code: "validation_error", message: "`after` does not name an item of this list." });
  });

  it("returns every item when `limit` is omitted on an endpoint that documents so", async () => {
    const all = await listPage(teamItems("a"), {}, { whenLimitOmitted: "all" });
    expect(all.has_more).toBe(false);
    expect(all.data.map((r) => r.id)).toEqual(expected);
    const limited = await listPage(teamItems("a"), { limit: 2 }, { whenLimitOmitted: "all" });
    expect(limited.data).toHaveLength(2);
  });

  it("maps rows to wire items and can order by another unique key", async () => {
    const byName = await listPage(
      teamItems("a"),
      { limit: 3, after: expected[0]! },
      { orderBy: ["name", "id"], toItem: (r: Row) => ({ object: "item", name: r.name }) },
    );
    const names = (await sql<{ name: string }>`SELECT name FROM items WHERE team = 'a' ORDER BY name DESC, id DESC`.execute(db())).rows.map(
      (r) => r.name,
    );
    const from = names.indexOf("a24");
    expect(byName.data).toEqual(names.slice(from + 1, from + 4).map((name) => ({ object: "item", name })));
  });
});
