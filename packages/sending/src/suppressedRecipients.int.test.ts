import { afterAll, beforeAll, expect, it } from "vitest";
import { newId } from "@tidings/core";
import { createTestDatabase, type TestDatabase } from "@tidings/postgres";
import { suppressedRecipients } from "./suppressedRecipients.js";

let test: TestDatabase;
beforeAll(async () => {
  test = await createTestDatabase();
  // The columns of the `suppressions` read model that the lookup reads.
  await test.database.exec(
    "CREATE TABLE suppressions (team_id uuid NOT NULL, email text NOT NULL, origin text NOT NULL, PRIMARY KEY (team_id, email))",
  );
});
afterAll(async () => {
  await test?.dispose();
});

it("answers each of many concurrent sends with its own team's suppressed addresses and their origins, sorted", async () => {
  const [a, b] = [newId(), newId()];
  await test.database.exec(
    `INSERT INTO suppressions VALUES ('${a}', 'x@a.test', 'bounce'), ('${a}', 'w@a.test', 'complaint'), ('${b}', 'y@b.test', 'manual')`,
  );
  const lookup = suppressedRecipients(test.database);
  const asked = Array.from({ length: 50 }, (_, i) =>
    i % 2 === 0 ? lookup(a, ["y@b.test", "x@a.test", `n${i}@a.test`, "w@a.test"]) : lookup(b, ["x@a.test", "y@b.test"]),
  );
  const answers = await Promise.all(asked);
  const ofA = [
    { email: "w@a.test", origin: "complaint" },
    { email: "x@a.test", origin: "bounce" },
  ];
  answers.forEach((answer, i) => expect(answer).toEqual(i % 2 === 0 ? ofA : [{ email: "y@b.test", origin: "manual" }]));
  expect(await lookup(a, [])).toEqual([]);
});

it("compares bare addresses, whatever the names and case the recipients are written with", async () => {
  const team = newId();
  await test.database.exec(`INSERT INTO suppressions VALUES ('${team}', 'ann@a.test', 'bounce')`);
  expect(await suppressedRecipients(test.database)(team, ["Ann <Ann@A.test>", "bob@a.test"])).toEqual([
    { email: "ann@a.test", origin: "bounce" },
  ]);
});

it("fails the sends of a query that fails, and answers the next ones", async () => {
  const lookup = suppressedRecipients(test.database);
  await expect(Promise.all([lookup("not a uuid", ["x@a.test"]), lookup(newId(), ["x@a.test"])])).rejects.toThrow();
  expect(await lookup(newId(), ["x@a.test"])).toEqual([]);
});
