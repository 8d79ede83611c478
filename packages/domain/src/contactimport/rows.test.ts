import { describe, expect, it } from "vitest";
import type { ColumnMap } from "./events.js";
import { readImportRow } from "./rows.js";

const columns: ColumnMap = {
  email: "Email",
  firstName: "First",
  lastName: null,
  unsubscribed: "Unsub",
  properties: { age: "Age", company: "Company" },
};
const types = { age: "number", company: "string" } as const;

describe("readImportRow", () => {
  it("reads a row by the column map, typed by the properties", () => {
    expect(readImportRow({ Email: " Ada@Example.com ", First: "Ada", Unsub: "Yes", Age: "36", Company: "Acme" }, columns, types)).toEqual({
      ok: true,
      email: "ada@example.com",
      fields: { firstName: "Ada", unsubscribed: true },
      properties: { age: 36, company: "Acme" },
    });
  });
  it("sets nothing for empty cells and absent columns", () => {
    expect(readImportRow({ Email: "a@example.com", First: "", Age: "" }, columns, types)).toEqual({
      ok: true,
      email: "a@example.com",
      fields: {},
      properties: {},
    });
  });
  it("fails a row with a missing or malformed email", () => {
    expect(readImportRow({ Email: "" }, columns, types)).toEqual({ ok: false, reason: "missing email" });
    expect(readImportRow({ Email: "not-an-email" }, columns, types)).toEqual({ ok: false, reason: "invalid email `not-an-email`" });
  });
  it("fails a row whose property is of the wrong type", () => {
    expect(readImportRow({ Email: "a@example.com", Age: "forty" }, columns, types)).toEqual({
      ok: false,
      reason: "property `age` must be a number, not `forty`",
    });
    expect(readImportRow({ Email: "a@example.com", Age: "4O" }, columns, types)).toMatchObject({ ok: false });
  });
  it("fails a row with an unreadable unsubscribed flag, a too-long name, or an unknown property", () => {
    expect(readImportRow({ Email: "a@example.com", Unsub: "maybe" }, columns, types)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("`unsubscribed`"),
    });
    expect(readImportRow({ Email: "a@example.com", First: "x".repeat(256) }, columns, types)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("`first_name`"),
    });
    expect(readImportRow({ Email: "a@example.com", Company: "x" }, columns, { age: "number" })).toEqual({
      ok: false,
      reason: "`company` is not a contact property",
    });
  });
});
