import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@tidings/core";
import { createTestDatabase, testMode, type TestDatabase } from "@tidings/postgres";
import { createSubjectHasher, erasedText, subjectTag } from "@tidings/privacy";
import { suppressedRecipients as lookupOn } from "./suppressedRecipients.js";

const hashSubject = createSubjectHasher("suppressed-recipients-test-secret");
const suppressedRecipients = (database: TestDatabase["database"]) => lookupOn(database, hashSubject);

let test: TestDatabase;
beforeAll(async () => {
  test = await createTestDatabase();
  // The columns of the `suppressions` read model that the lookup reads.
  await test.database.exec(
    "CREATE TABLE suppressions (team_id uuid NOT NULL, email text NOT NULL, email_hash text, origin text NOT NULL, PRIMARY KEY (team_id, email))",
  );
});
afterAll(async () => {
  await test?.dispose();
});

it("answers each of many concurrent sends with its own team's suppressed addresses and their origins, sorted", async () => {
  const [a, b] = [newId(), newId()];
  await test.database.exec(
    `INSERT INTO suppressions (team_id, email, origin) VALUES ('${a}', 'x@a.test', 'bounce'), ('${a}', 'w@a.test', 'complaint'), ('${b}', 'y@b.test', 'manual')`,
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
  await test.database.exec(`INSERT INTO suppressions (team_id, email, origin) VALUES ('${team}', 'ann@a.test', 'bounce')`);
  expect(await suppressedRecipients(test.database)(team, ["Ann <Ann@A.test>", "bob@a.test"])).toEqual([
    { email: "ann@a.test", origin: "bounce" },
  ]);
});

it("fails the sends of a query that fails, and answers the next ones", async () => {
  const lookup = suppressedRecipients(test.database);
  await expect(Promise.all([lookup("not a uuid", ["x@a.test"]), lookup(newId(), ["x@a.test"])])).rejects.toThrow();
  expect(await lookup(newId(), ["x@a.test"])).toEqual([]);
});

describe(`an address erased while suppressed (${testMode()})`, () => {
  /** The row as the read model holds it once the address is erased: a placeholder, and the address's hash. */
  const erasedRow = (team: string, address: string, origin: string) => {
    const hash = hashSubject(team, address);
    return `('${team}', '${erasedText(subjectTag(hash))}', '${hash}', '${origin}')`;
  };

  it("is still suppressed, found by its keyed hash and answered with the address asked about", async () => {
    const team = newId();
    await test.database.exec(
      `INSERT INTO suppressions (team_id, email, email_hash, origin) VALUES ${erasedRow(team, "gone@a.test", "bounce")}`,
    );
    expect(await suppressedRecipients(test.database)(team, ["Gone <GONE@a.test>", "here@a.test"])).toEqual([
      { email: "gone@a.test", origin: "bounce" },
    ]);
  });

  it("is not suppressed for another team, whose hash of the same address differs", async () => {
    const [team, other] = [newId(), newId()];
    await test.database.exec(
      `INSERT INTO suppressions (team_id, email, email_hash, origin) VALUES ${erasedRow(team, "left@a.test", "complaint")}`,
    );
    expect(await suppressedRecipients(test.database)(other, ["left@a.test"])).toEqual([]);
    // Another team's row holding this team's hash of the address does not match either: rows are per team.
    const misplaced = erasedRow(team, "moved@a.test", "bounce").replace(team, other);
    await test.database.exec(`INSERT INTO suppressions (team_id, email, email_hash, origin) VALUES ${misplaced}`);
    expect(await suppressedRecipients(test.database)(team, ["moved@a.test"])).toEqual([]);
  });

  it("keeps the origin of the address's own row when it is listed again after its erasure", async () => {
    const team = newId();
    await test.database.exec(
      `INSERT INTO suppressions (team_id, email, email_hash, origin) VALUES ${erasedRow(team, "back@a.test", "bounce")},
        ('${team}', 'back@a.test', '${hashSubject(team, "back@a.test")}', 'manual')`,
    );
    expect(await suppressedRecipients(test.database)(team, ["back@a.test"])).toEqual([{ email: "back@a.test", origin: "manual" }]);
  });
});

// Last in the file: it takes the column away from the table the tests above share.
it("answers by address alone while the list's version before `email_hash` still serves", async () => {
  const team = newId();
  await test.database.exec(`INSERT INTO suppressions (team_id, email, origin) VALUES ('${team}', 'old@a.test', 'bounce')`);
  await test.database.exec("ALTER TABLE suppressions DROP COLUMN email_hash");
  expect(await suppressedRecipients(test.database)(team, ["old@a.test", "new@a.test"])).toEqual([
    { email: "old@a.test", origin: "bounce" },
  ]);
});
