import { html, type HtmlValue } from "./html.js";

/** Labelled values of one thing (an email, a broadcast), leaving out those it does not have. */
export const facts = (rows: readonly (readonly [string, HtmlValue])[]) =>
  html`<dl class="facts">
    ${rows
      .filter(([, value]) => value)
      .map(
        ([label, value]) =>
          html`<dt>${label}</dt>
            <dd>${value}</dd>`,
      )}
  </dl>`;
