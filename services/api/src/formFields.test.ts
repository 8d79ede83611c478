import { describe, expect, it } from "vitest";
import { formFields } from "./formFields.js";

describe("formFields", () => {
  it("gives every field its values in order, a repeated name all of them", () => {
    expect(formFields("topic=a&action=save&topic=b&empty=")).toEqual({ topic: ["a", "b"], action: ["save"], empty: [""] });
  });

  it("takes fields named like Object.prototype's members as fields", () => {
    // given a post whose names are inherited members of a plain object
    const fields = formFields("toString=null&constructor=c&__proto__=p&hasOwnProperty=h&toString=again&bind=");

    // then each is an own field with its values, and the object's prototype is untouched
    expect(Object.entries(fields)).toEqual([
      ["toString", ["null", "again"]],
      ["constructor", ["c"]],
      ["__proto__", ["p"]],
      ["hasOwnProperty", ["h"]],
      ["bind", [""]],
    ]);
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
  });
});
