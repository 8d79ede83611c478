import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { settings } from "@tidings/core";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

describe("README", () => {
  it("opens with the two commands", () => {
    const firstBlocks = [...readme.matchAll(/```sh\n([^`]+)```/g)].slice(0, 2).map((m) => m[1]!.trim());
    expect(firstBlocks).toEqual(["npm install && npm start", "npm install && npm test"]);
  });
  it.each(Object.keys(settings))("documents the setting %s", (name) => {
    expect(readme).toContain(`| \`${name}\` |`);
  });
});
