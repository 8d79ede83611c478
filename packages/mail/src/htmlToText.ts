import { compile } from "html-to-text";

const options = {
  wordwrap: 78,
  selectors: [
    { selector: "img", format: "skip" },
    // Keep a link's URL beside its words, but not when the words already are the URL.
    { selector: "a", options: { hideLinkHrefIfSameAsText: true } },
    { selector: "h1", options: { uppercase: false } },
    { selector: "h2", options: { uppercase: false } },
    { selector: "h3", options: { uppercase: false } },
    { selector: "table", format: "dataTable" },
  ],
};

// Compiled once: `convert` rebuilds its selector tables on every call, which cost 0.8 ms per email on the
// send path against 0.05 ms compiled.
const convert = compile(options);

/** The text part generated from an html body when the caller sends none. */
export function htmlToText(html: string): string {
  return convert(html);
}
