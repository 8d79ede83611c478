import { describe, expect, it } from "vitest";
import { serverForFile } from "../support/serverForFile.js";
import { paced, succeeded, uuid } from "../support/wire.js";

/**
 * Sharing an email through the official SDK (docs/wire-compatibility.md §6.1): `file.resend.emails.share` makes a
 * link that anyone can open without a key, until it expires or is revoked.
 */

const file = serverForFile({ TIDINGS_ALLOW_UNVERIFIED_FROM: "true" });

const message = { from: "Acme <hello@acme.test>", to: ["ann@example.test"], subject: "Your receipt", html: "<p>Total: <b>42</b></p>" };
/** The link opened as a person opens it: a plain GET, no key. */
const open = (url: string) => fetch(url, { redirect: "manual" });
const frameOf = (url: string) => url.replace("/shared?", "/shared/content?");

describe("file.resend.emails.share", () => {
  it("answers {object, id, url}, and the url opens the email for anyone, sandboxed", async () => {
    const sent = await succeeded(() => file.resend.emails.send(message));
    const shared = await succeeded(() => file.resend.emails.share(sent.id));
    expect(shared).toMatchObject({ object: "email", id: sent.id, url: expect.stringMatching(/\/shared\?token=eyJ/) });
    expect(shared.url.startsWith(file.server.url)).toBe(true);

    const page = await open(shared.url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toMatch(/frame-ancestors 'none'/);
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.headers.get("x-robots-tag")).toMatch(/noindex/);
    const html = await page.text();
    expect(html).toContain("Your receipt");
    expect(html).toContain("ann@example.test");
    expect(html).toContain('<iframe sandbox=""');

    const frame = await open(frameOf(shared.url));
    expect(frame.status).toBe(200);
    expect(frame.headers.get("content-security-policy")).toMatch(/^sandbox; default-src 'none'/);
    expect(await frame.text()).toBe("<p>Total: <b>42</b></p>");
  });

  it("takes expiresIn, and the link stops working once it has passed", async () => {
    const sent = await succeeded(() => file.resend.emails.send(message));
    const shared = (await succeeded(() => file.resend.emails.share(sent.id, { expiresIn: "3 seconds" }))) as {
      url: string;
      expires_at?: string;
    };
    expect((await open(shared.url)).status).toBe(200);
    const expiresAt = new Date(shared.expires_at!.replace(" ", "T").replace("+00", "Z")).getTime();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 300));
    const expired = await open(shared.url);
    expect(expired.status).toBe(410);
    expect(await expired.text()).toContain("This link has expired");
  });

  it("refuses an expiresIn past 48 hours, naming the field", async () => {
    const sent = await succeeded(() => file.resend.emails.send(message));
    const { data, error } = await paced(() => file.resend.emails.share(sent.id, { expiresIn: "3 days" }));
    expect(data).toBeNull();
    expect(error).toMatchObject({ name: "validation_error", statusCode: 422, message: expect.stringContaining("`expires_in`") });
  });

  it("can be revoked, after which the link says so", async () => {
    const sent = await succeeded(() => file.resend.emails.send(message));
    const shared = (await succeeded(() => file.resend.emails.share(sent.id))) as { url: string; share_id?: string };
    expect(shared.share_id).toMatch(uuid);
    const revoked = await paced(() => file.resend.delete(`/emails/${sent.id}/share/${shared.share_id}`));
    expect(revoked.error).toBeNull();
    const page = await open(shared.url);
    expect(page.status).toBe(410);
    expect(await page.text()).toContain("This link was revoked");
  });

  it("does not share an email that is not the team's", async () => {
    const { error } = await paced(() => file.resend.emails.share("0b6a5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d"));
    expect(error).toMatchObject({ name: "not_found", statusCode: 404 });
  });
});
