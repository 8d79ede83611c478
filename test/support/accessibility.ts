import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { AxeResults, RunOnly, RunOptions } from "axe-core";
import type { Page } from "playwright-core";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * What a check runs: every rule of WCAG 2.1 levels A and AA, and axe's best practices (landmarks, heading
 * order, one `h1`), which cost next to nothing beside them; or only the rules a colour scheme changes the
 * outcome of, for the same page in its other scheme.
 */
const rules: Record<"all" | "colours", RunOnly> = {
  all: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
  colours: { type: "rule", values: ["color-contrast", "link-in-text-block"] },
};

/**
 * The innermost elements reaching past the viewport's right edge, outside any box that scrolls on its own
 * (a table's wrapper), as `tag#id.class`; none when the page is no wider than the viewport.
 */
const overflowing = `(() => {
  const width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth <= width) return [];
  const scrollsAlone = (element) => {
    for (let box = element.parentElement; box && box !== document.body; box = box.parentElement)
      if (getComputedStyle(box).overflowX !== "visible") return true;
    return false;
  };
  const wide = [...document.body.querySelectorAll("*")].filter((e) => e.getBoundingClientRect().right > width + 1 && !scrollsAlone(e));
  return wide
    .filter((e) => !wide.some((inner) => inner !== e && e.contains(inner)))
    .map((e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + [...e.classList].map((c) => "." + c).join(""));
})()`;

/**
 * What axe-core finds wrong on the page as it is now, one line a rule: its id, impact, the elements (CSS
 * selectors) and its help. An email's or a template's html, in a sandboxed frame, is its author's: axe
 * checks the frame's title, not what is inside it. With `all`, also WCAG 1.4.10 (Reflow), which axe does
 * not check: a page that is wider than the viewport, to be read scrolling sideways.
 *
 * axe is evaluated through the DevTools protocol, which the page's CSP does not govern: a `<script>` added
 * to the page (`addScriptTag`) is refused by `script-src 'self'`, and reported as a CSP violation.
 */
export async function accessibilityViolations(page: Page, checks: keyof typeof rules = "all"): Promise<string[]> {
  if (!(await page.evaluate<boolean>("typeof axe === 'object'"))) await page.evaluate(axeSource);
  const options: RunOptions = { runOnly: rules[checks], resultTypes: ["violations"], iframes: false };
  const results = await page.evaluate<AxeResults>(`axe.run(document, ${JSON.stringify(options)})`);
  const violations = results.violations.map(
    (rule) => `${rule.id} (${rule.impact}): ${rule.nodes.map((node) => node.target.join(" ")).join(", ")}: ${rule.help}`,
  );
  const wide = checks === "all" ? await page.evaluate<string[]>(overflowing) : [];
  if (wide.length > 0) violations.push(`reflow: ${wide.join(", ")}: the page is wider than the viewport, to be read scrolling sideways`);
  return violations;
}
