import { describe, expect, it } from "vitest";
import { isResultTypeChange, StatementNames } from "./statementNames.js";

const select = "SELECT id FROM emails WHERE id = $1";

describe("StatementNames", () => {
  it("names a statement once it has been seen twice, and keeps that name", () => {
    const names = new StatementNames();
    expect(names.nameOf(select)).toBeUndefined();
    expect(names.nameOf(select)).toBeUndefined();
    const name = names.nameOf(select);
    expect(name).toMatch(/^t[0-9a-f]{24}_0$/);
    expect(names.nameOf(select)).toBe(name);
  });

  it("gives different texts different names", () => {
    const names = new StatementNames({ repeatsBeforeNaming: 0, maxNamed: 10, maxLength: 2048, maxTracked: 10 });
    expect(names.nameOf(select)).not.toBe(names.nameOf("SELECT id FROM contacts WHERE id = $1"));
  });

  it.each(["BEGIN", "commit", "SET LOCAL statement_timeout = 100", "CREATE TABLE t (a int)", "LISTEN x"])("never names %s", (text) => {
    const names = new StatementNames({ repeatsBeforeNaming: 0, maxNamed: 10, maxLength: 2048, maxTracked: 10 });
    expect(names.nameOf(text)).toBeUndefined();
  });

  it("names no text past its length limit, nor past its count", () => {
    const names = new StatementNames({ repeatsBeforeNaming: 0, maxNamed: 2, maxLength: 60, maxTracked: 10 });
    expect(names.nameOf(`SELECT ${"x, ".repeat(30)}y FROM t`)).toBeUndefined();
    expect(names.nameOf("SELECT 1")).toBeDefined();
    expect(names.nameOf("SELECT 2")).toBeDefined();
    expect(names.nameOf("SELECT 3")).toBeUndefined();
    expect(names.nameOf("SELECT 1")).toBeDefined();
  });

  it("forgets what it has seen rather than keep every text, which only delays naming", () => {
    const names = new StatementNames({ repeatsBeforeNaming: 1, maxNamed: 10, maxLength: 2048, maxTracked: 2 });
    names.nameOf("SELECT 1");
    names.nameOf("SELECT 2");
    names.nameOf("SELECT 3");
    expect(names.nameOf("SELECT 1")).toBeUndefined();
    expect(names.nameOf("SELECT 1")).toBeDefined();
  });

  it("gives a retired statement a new name, and leaves unnamed texts alone", () => {
    const names = new StatementNames({ repeatsBeforeNaming: 0, maxNamed: 10, maxLength: 2048, maxTracked: 10 });
    const first = names.nameOf(select);
    names.retire(select);
    const second = names.nameOf(select);
    expect(second).toMatch(/_1$/);
    expect(second).not.toBe(first);
    names.retire("SELECT never named");
    expect(names.nameOf("SELECT never named")).toMatch(/_0$/);
  });

  it("tells PostgreSQL's result-type change from other errors", () => {
    expect(isResultTypeChange(Object.assign(new Error("cached plan must not change result type"), { code: "0A000" }))).toBe(true);
    expect(isResultTypeChange(Object.assign(new Error("feature not supported"), { code: "0A000" }))).toBe(false);
    expect(isResultTypeChange(new Error("cached plan must not change result type"))).toBe(false);
  });
});
