import MailComposer from "nodemailer/lib/mail-composer/index.js";
import { describe, expect, it } from "vitest";
import { canaryForms, findCanaries, formatFindings, type Finding } from "./canarySearch.js";

const address = "Zoe.Canary-x7q@Example.com";
const name = "Zoë Kanarienvogel-x7q";
const kinds = (findings: Finding[]) => [...new Set(findings.map((f) => f.kind))].sort();

/**
 * Messages as nodemailer composes them, the name and address shifted by 0 to 59 characters, so that the
 * 76-column wraps of base64 and quoted-printable and the split of a long encoded subject fall everywhere.
 */
async function messages(): Promise<string[]> {
  const shifted = Array.from({ length: 60 }, (_, shift) => {
    const filler = "x".repeat(shift);
    const composer = new MailComposer({
      from: "sender@tidings.example",
      to: { name, address },
      subject: `Über ${filler} ${name}, with some words after the name`,
      text: `Hallo ${filler} ${name}, ${"a line long enough for quoted-printable to wrap it softly, ".repeat(2)}`,
      attachments: [{ filename: "contacts.csv", content: `name,email\n${filler},${address}\n` }],
    });
    return composer.compile().build();
  });
  return (await Promise.all(shifted)).map((message) => message.toString());
}

describe("canaryForms", () => {
  it("lists the value and its base64, quoted-printable, Q, URL and hex forms, each once", () => {
    const forms = canaryForms("ann lee=x@example.com");
    expect(forms).toEqual(
      expect.arrayContaining([
        "ann lee=x@example.com",
        "YW5uIGxlZT14QGV4YW1wbGUuY29t",
        "ann lee=3Dx@example.com",
        "ann_lee=3Dx=40example=2Ecom",
        "ann%20lee%3Dx%40example.com",
        "ann+lee%3Dx%40example.com",
        Buffer.from("ann lee=x@example.com").toString("hex"),
      ]),
    );
    expect(new Set(forms).size).toBe(forms.length);
  });

  it("refuses a value too short to be told from chance", () => {
    expect(() => canaryForms("Ann")).toThrow(/shorter than/);
  });
});

describe("findCanaries", () => {
  it("finds the plain value in another case", () => {
    const [finding, ...rest] = findCanaries(`{"email":"${address.toUpperCase()}"}`, [address]);
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({ canary: address, kind: "plain", index: 10, context: `{"email":"${address.toUpperCase()}"}` });
  });

  it.each([0, 1, 2])("finds the base64 of the value inside a larger blob after %i lead bytes", (lead) => {
    for (const before of ["", "abc", "abcdef"]) {
      for (const after of ["", "x", "xy", " and more text"]) {
        const blob = Buffer.from(`${"#".repeat(lead)}${before}${address}${after}`).toString("base64");
        expect(kinds(findCanaries(`{"data":"${blob}"}`, [address]))).toEqual(["base64"]);
      }
    }
  });

  it("finds the base64 of the value across the line breaks of a MIME body, wherever they fall", async () => {
    const found = (await messages()).map((message) => ({
      message,
      findings: findCanaries(message, [address]).filter((f) => f.kind === "base64"),
    }));
    for (const { findings } of found) expect(findings).toHaveLength(1);
    expect(found.filter(({ message, findings }) => !message.includes(findings[0]!.form)).length).toBeGreaterThan(0);
  });

  it("finds base64 only in its own case", () => {
    const blob = Buffer.from(`prefix ${address} suffix`).toString("base64");
    const swapped = [...blob].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join("");
    expect(findCanaries(swapped, [address])).toEqual([]);
  });

  it("finds the quoted-printable and Q-encoded value in messages nodemailer composed, across soft breaks and split words", async () => {
    const found = (await messages()).map((message) => ({ message, findings: findCanaries(message, [name]) }));
    for (const { message, findings } of found) {
      // The To header and the subject in Q-encoded words, the body in quoted-printable.
      expect(findings.map((f) => f.kind).sort()).toEqual(["q-encoding", "q-encoding", "quoted-printable"]);
      for (const finding of findings) expect(message[finding.index]).toBe("Z");
    }
    const qpSplit = found.filter(({ message }) => !message.includes("Zo=C3=AB Kanarienvogel-x7q"));
    const subjectSplit = found.filter(({ message }) => message.split("Zo=C3=AB_Kanarienvogel-x7q").length < 3);
    expect(qpSplit.length).toBeGreaterThan(0);
    expect(subjectSplit.length).toBeGreaterThan(0);
  });

  it("finds the URL-encoded and form-encoded value in a query string", () => {
    const owner = "Ann Canary+Lee";
    const url = `/unsubscribe?email=${encodeURIComponent(address)}&name=${new URLSearchParams({ owner }).toString().slice(6)}`;
    expect(kinds(findCanaries(url, [address, owner]))).toEqual(["form-url", "url"]);
  });

  it("finds the hex of the value in a bytea column read as JSON", () => {
    const row = JSON.stringify({ id: "b1", bytes: `\\x${Buffer.from(`name,email\n${address.toLowerCase()}\n`).toString("hex")}` });
    const [finding] = findCanaries(row, [address]);
    expect(finding).toMatchObject({ kind: "hex", form: Buffer.from(address.toLowerCase()).toString("hex") });
  });

  it("finds nothing of another value, in any form of one that differs from it in one character", async () => {
    const everyForm = [...(await messages()), ...canaryForms(address), ...canaryForms(name)].join("\n");
    expect(findCanaries(everyForm, ["Zoe.Kanary-x7q@Example.com", "Zoë Kanarienfogel-x7q", "unrelated-person@example.org"])).toEqual([]);
  });
});

describe("formatFindings", () => {
  it("names where each canary is, in which form, and around what", () => {
    const findings = findCanaries(`xx ${address} yy`, [address], { database: "tidings_1", table: "public.contacts" });
    expect(formatFindings(findings)).toBe(
      `1 canary finding(s):\n- database tidings_1, table public.contacts: "${address}" as plain "${address}" at 3: "xx ${address} yy"`,
    );
    expect(formatFindings([])).toBe("no canary found");
  });
});
