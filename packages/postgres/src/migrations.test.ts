import { describe, expect, it } from "vitest";
import { splitStatements } from "./migrations.js";

describe("splitStatements", () => {
  it("splits on line-ending semicolons and keeps dollar-quoted bodies whole", () => {
    const text = `CREATE TABLE a (x int);
-- a comment;
CREATE FUNCTION f() RETURNS int AS $$
BEGIN
  RETURN 1;
END;
$$ LANGUAGE plpgsql;
INSERT INTO a VALUES (1);`;
    const parts = splitStatements(text);
    expect(parts).toHaveLength(3);
    expect(parts[1]).toContain("RETURN 1;");
    expect(parts[1]).toMatch(/LANGUAGE plpgsql$/);
    expect(parts[2]).toBe("INSERT INTO a VALUES (1)");
  });
});
