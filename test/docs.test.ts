import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as domain from "@tidings/domain";
import { catalogueFile, eventCatalogue, regenerateCommand } from "../scripts/event-catalogue.mjs";

const root = new URL("../", import.meta.url);
const docsDir = new URL("../docs/", import.meta.url);
const docs = readdirSync(docsDir)
  .filter((name) => name.endsWith(".md"))
  .map((name) => ({ name, text: readFileSync(new URL(name, docsDir), "utf8") }));

/** Where the repository's own files live: a backticked path starting here names a file or folder of it. */
const rootEntries =
  /^(packages|services|projections|scripts|test|bench|docs|deploy|\.ci)\/[\w.@/-]*$|^(README\.md|Dockerfile|docker-compose\.yml|package\.json|vitest\.config\.ts|tsconfig(\.base)?\.json)$/;

const backtickedPaths = (text: string) => [
  ...new Set([...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!).filter((t) => rootEntries.test(t))),
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

const anchorsIn = (text: string) => new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!.replace(/`/g, ""))));

/** Relative links `[text](target)`, with or without `#anchor`; web links are left alone. */
const relativeLinks = (text: string) =>
  [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/.test(target));

describe("docs/", () => {
  it("holds the event catalogue as the zod schemas of packages/domain generate it", () => {
    const written = readFileSync(catalogueFile, "utf8");
    expect(written, `docs/events.md is out of date with the event schemas: run \`${regenerateCommand}\``).toBe(eventCatalogue(domain));
  });

  it.each(docs.map((d) => [d.name, d.text]))("names only repository paths that exist in %s", (_name, text) => {
    const missing = backtickedPaths(text).filter((path) => !existsSync(new URL(path, root)));
    expect(missing).toEqual([]);
  });

  it.each(docs.map((d) => [d.name, d.text]))("links only to files and headings that exist from %s", (name, text) => {
    const broken = relativeLinks(text).filter((target) => {
      const [file, anchor] = target.split("#") as [string, string | undefined];
      const url = new URL(file || name, docsDir);
      if (!existsSync(url)) return true;
      return anchor !== undefined && url.pathname.endsWith(".md") && !anchorsIn(readFileSync(url, "utf8")).has(anchor);
    });
    expect(broken).toEqual([]);
  });
});
