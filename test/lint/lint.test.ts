// `npm test` runs the repository's linter and format check (scripts/test.mjs); these prove that they fail
// on what they exist to catch, with the repository's own configuration, on small fixtures of their own.
import { ESLint } from "eslint";
import { join } from "node:path";
import * as prettier from "prettier";
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const fixtures = join(import.meta.dirname, "fixtures");

/** The rule ids ESLint reports for a fixture under eslint.config.mjs, its type information from the fixtures' own program. */
async function ruleIdsFor(fixture: string): Promise<(string | null)[]> {
  const eslint = new ESLint({
    cwd: root,
    ignore: false,
    overrideConfig: { languageOptions: { parserOptions: { project: [join(fixtures, "tsconfig.json")] } } },
  });
  const [result] = await eslint.lintFiles([join(fixtures, fixture)]);
  return result!.messages.map((message) => message.ruleId);
}

// Each case builds a TypeScript program for its fixture, seconds alone and much more beside npm test's other
// tiers at nice 10.
describe("the linter of npm test", { timeout: 180_000 }, () => {
  it("fails on a floating promise", async () => {
    expect(await ruleIdsFor("floatingPromise.ts")).toEqual(["@typescript-eslint/no-floating-promises"]);
  });

  it("fails on a promise passed where a callback's result is ignored", async () => {
    expect(await ruleIdsFor("misusedPromise.ts")).toEqual(["@typescript-eslint/no-misused-promises"]);
  });

  it("passes the same calls once each promise is handled", async () => {
    expect(await ruleIdsFor("handledPromise.ts")).toEqual([]);
  });
});

describe("the format check of npm test", () => {
  it("fails on a file Prettier would change, and passes it once formatted", async () => {
    const file = join(fixtures, "unformatted.ts");
    const options = { ...(await prettier.resolveConfig(file)), filepath: file };
    const text = await readFile(file, "utf8");
    expect(await prettier.check(text, options)).toBe(false);
    expect(await prettier.check(await prettier.format(text, options), options)).toBe(true);
  });
});
