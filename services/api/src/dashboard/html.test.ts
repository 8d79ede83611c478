import { describe, expect, it } from "vitest";
import { html } from "./html.js";

describe("html", () => {
  it("escapes interpolated text, in elements and in attribute values", () => {
    const subject = `<script>alert("x")</script> & 'more'`;
    const escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;more&#39;";
    expect(html`<p title="${subject}">${subject}</p>`.text).toBe(`<p title="${escaped}">${escaped}</p>`);
  });

  it("keeps nested html as it is, and renders lists item by item", () => {
    const items = ["a<b", "c"].map((name) => html`<li>${name}</li>`);
    expect(
      html`<ul>
        ${items}
      </ul>`.text.replace(/\s+/g, ""),
    ).toBe("<ul><li>a&lt;b</li><li>c</li></ul>");
  });

  it("renders null, undefined and false as nothing, and numbers as text", () => {
    expect(html`${null}${undefined}${false}${0}${true}`.text).toBe("0true");
  });
});
