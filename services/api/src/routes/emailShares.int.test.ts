import { createBlobStore } from "@tidings/blobs";
import { formatTimestamp, newId } from "@tidings/core";
import { inboundEmailStream } from "@tidings/domain";
import { describe, expect, it } from "vitest";
import { apiTestFile } from "../testing/apiTestFile.js";
import { emailSender } from "../testing/emailRequests.js";
import { wireError as error } from "../testing/jsonCalls.js";

/** Share links: made, refused, expired, revoked, and the page and its frame they open, with their headers. */

const file = apiTestFile("shares");
const { call } = file;
const send = emailSender(file);

const share = (id: string, body: unknown = {}, key = file.admin, headers: Record<string, string> = {}) =>
  call("POST", `/emails/${id}/share`, body, key, headers);
const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};
const open = (url: string) => file.app.inject({ method: "GET", url: pathOf(url) });
const frameOf = (url: string) => file.app.inject({ method: "GET", url: pathOf(url).replace("/shared?", "/shared/content?") });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("POST /emails/:id/share", () => {
  it("answers the document's {object, id, url}, a link of 48 hours under PUBLIC_URL", async () => {
    const { body: sent } = await send({ html: "<p>Hello <b>Ann</b></p>" });
    const before = Date.now();
    const res = await share(sent.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: "email",
      id: sent.id,
      url: expect.stringMatching(/\/shared\?token=eyJhbGciOiJIUzI1NiJ9\.[\w-]+\.[\w-]+$/),
      share_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      expires_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}\+00$/),
    });
    expect(res.body.url.startsWith(file.testServices.services.config.PUBLIC_URL)).toBe(true);
    const expires = new Date(res.body.expires_at.replace(" ", "T").replace("+00", "Z")).getTime();
    expect(Math.abs(expires - (before + 48 * 3600_000))).toBeLessThan(60_000);
  });

  it("takes expires_in as a duration, and no body at all", async () => {
    const { body: sent } = await send();
    const before = Date.now();
    const res = await share(sent.id, { expires_in: "10 minutes" });
    const expires = new Date(res.body.expires_at.replace(" ", "T").replace("+00", "Z")).getTime();
    expect(Math.abs(expires - (before + 600_000))).toBeLessThan(60_000);
    const bare = await file.app.inject({ method: "POST", url: `/emails/${sent.id}/share`, headers: file.admin.headers });
    expect(bare.statusCode).toBe(200);
  });

  it.each([["3 days"], ["49h"], ["soon"], ["0s"]])("refuses expires_in %s, naming the field", async (expiresIn) => {
    const { body: sent } = await send();
    expect(await share(sent.id, { expires_in: expiresIn })).toMatchObject(error(422, "validation_error", /`expires_in`/));
  });

  it("refuses an expires_in that is not a string, naming the field", async () => {
    const { body: sent } = await send();
    const res = await share(sent.id, { expires_in: 3600 });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.message).toMatch(/expires_in/);
  });

  it("does not find another team's email, nor one that does not exist", async () => {
    const { body: sent } = await send();
    expect(await share(sent.id, {}, file.other)).toMatchObject(error(404, "not_found", "Email not found"));
    expect(await share(newId())).toMatchObject(error(404, "not_found", "Email not found"));
  });

  it("replays the same link for the same Idempotency-Key", async () => {
    const { body: sent } = await send();
    const first = await share(sent.id, {}, file.admin, { "idempotency-key": "share-once" });
    const again = await share(sent.id, {}, file.admin, { "idempotency-key": "share-once" });
    expect(again.body).toEqual(first.body);
  });
});

describe("the shared page", () => {
  it("shows the email's subject, sender, recipients and date, and frames its body, without a key", async () => {
    const { body: sent } = await send({ html: "<p>Hello <b>Ann</b></p><script>alert(1)</script>", cc: ["cc@example.test"] });
    const { body: link } = await share(sent.id);
    const page = await open(link.url);
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.body).toContain("<h1>Welcome</h1>");
    expect(page.body).toContain("Acme &lt;hello@acme.test&gt;");
    expect(page.body).toContain("ann@example.test");
    expect(page.body).toContain("cc@example.test");
    expect(page.body).toMatch(/<time datetime="\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z">/);
    expect(page.body).not.toContain("Hello <b>Ann</b>");
    expect(page.body).toMatch(/<iframe sandbox="" referrerpolicy="no-referrer" src="shared\/content\?token=[^"]+"/);
    expect(page.body).not.toMatch(/<script/i);

    const frame = await frameOf(link.url);
    expect(frame.statusCode).toBe(200);
    expect(frame.body).toContain("<p>Hello <b>Ann</b></p>");
  });

  it("has a policy with no script, framed by nobody, and no referrer or indexing", async () => {
    const { body: sent } = await send();
    const { body: link } = await share(sent.id);
    const { headers } = await open(link.url);
    const csp = String(headers["content-security-policy"]);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("frame-src 'self'");
    expect(csp).not.toMatch(/script-src|unsafe-inline/);
    expect(headers["referrer-policy"]).toBe("no-referrer");
    expect(headers["x-robots-tag"]).toMatch(/noindex/);
    expect(headers["x-frame-options"]).toBe("DENY");
    expect(headers["cache-control"]).toBe("no-store");
  });

  it("serves the body sandboxed, loading nothing from the network, framed only by its own page", async () => {
    const { body: sent } = await send();
    const { body: link } = await share(sent.id);
    const { headers } = await frameOf(link.url);
    const directives = String(headers["content-security-policy"])
      .split(";")
      .map((d) => d.trim());
    expect(directives[0]).toBe("sandbox");
    expect(directives).toContain("default-src 'none'");
    expect(directives).toContain("img-src data:");
    expect(directives).toContain("frame-ancestors 'self'");
    expect(directives.join(" ")).not.toMatch(/allow-scripts|allow-same-origin|script-src/);
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("no-referrer");
    expect(headers["x-robots-tag"]).toMatch(/noindex/);
  });

  it("shows a text-only email's text, escaped", async () => {
    const { body: sent } = await send({ html: undefined, text: "Plain <text> & more" });
    const { body: link } = await share(sent.id);
    expect((await frameOf(link.url)).body).toContain("Plain &lt;text&gt; &amp; more");
  });

  it("says in words that a changed or missing token does not work", async () => {
    const { body: sent } = await send();
    const { body: link } = await share(sent.id);
    const changed = await open(link.url.slice(0, -2) + (link.url.endsWith("AA") ? "BB" : "AA"));
    expect(changed.statusCode).toBe(404);
    expect(changed.body).toContain("This link does not work");
    expect((await file.app.inject({ method: "GET", url: "/shared" })).statusCode).toBe(404);
    expect((await file.app.inject({ method: "GET", url: "/shared/content?token=x" })).statusCode).toBe(404);
  });

  it("expires: past expires_in, the page and the frame say so and show nothing", async () => {
    const { body: sent } = await send({ subject: "Short-lived" });
    const { body: link } = await share(sent.id, { expires_in: "3s" });
    expect((await open(link.url)).statusCode).toBe(200);
    await sleep(Math.max(0, new Date(link.expires_at.replace(" ", "T").replace("+00", "Z")).getTime() - Date.now()) + 300);
    const page = await open(link.url);
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain("This link has expired");
    expect(page.body).not.toContain("Short-lived");
    expect((await frameOf(link.url)).statusCode).toBe(410);
  });
});

describe("revoking", () => {
  it("revokes one link by its share_id, leaving the other; revoking again answers the same", async () => {
    const { body: sent } = await send({ subject: "Revocable" });
    const { body: first } = await share(sent.id);
    const { body: second } = await share(sent.id);
    const revoked = await call("DELETE", `/emails/${sent.id}/share/${first.share_id}`);
    expect(revoked).toEqual({ status: 200, body: { object: "email_share", id: first.share_id, email_id: sent.id, revoked: true } });
    const page = await open(first.url);
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain("This link was revoked");
    expect(page.body).not.toContain("Revocable");
    expect((await frameOf(first.url)).statusCode).toBe(410);
    expect((await open(second.url)).statusCode).toBe(200);
    expect((await call("DELETE", `/emails/${sent.id}/share/${first.share_id}`)).status).toBe(200);
  });

  it("revokes every link of an email at once", async () => {
    const { body: sent } = await send();
    const links = [(await share(sent.id)).body, (await share(sent.id)).body];
    expect(await call("DELETE", `/emails/${sent.id}/share`)).toEqual({
      status: 200,
      body: { object: "email", id: sent.id, revoked: true },
    });
    for (const link of links) expect((await open(link.url)).statusCode).toBe(410);
  });

  it("does not let another team revoke, nor find a link the email does not have", async () => {
    const { body: sent } = await send();
    const { body: link } = await share(sent.id);
    expect(await call("DELETE", `/emails/${sent.id}/share/${link.share_id}`, undefined, file.other)).toMatchObject(
      error(404, "not_found", "Email not found"),
    );
    expect(await call("DELETE", `/emails/${sent.id}/share`, undefined, file.other)).toMatchObject(
      error(404, "not_found", "Email not found"),
    );
    expect(await call("DELETE", `/emails/${sent.id}/share/${newId()}`)).toMatchObject(error(404, "not_found", "Share not found"));
    expect((await open(link.url)).statusCode).toBe(200);
  });
});

describe("privacy", () => {
  it("says an email whose recipient was erased is gone, and shows nothing of it", async () => {
    const address = `erase-${newId().slice(0, 8)}@example.test`;
    const contact = await call("POST", "/contacts", { email: address });
    expect(contact.status).toBe(201);
    const { body: sent } = await send({ to: [address], subject: "About to be erased", html: "<p>Secret</p>" });
    const { body: link } = await share(sent.id);
    expect((await open(link.url)).statusCode).toBe(200);
    expect((await call("DELETE", `/contacts/${contact.body.id}`)).status).toBe(200);
    const page = await open(link.url);
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain("This email is no longer available");
    expect(page.body).not.toContain("About to be erased");
    const frame = await frameOf(link.url);
    expect(frame.statusCode).toBe(410);
    expect(frame.body).not.toContain("Secret");
  });
});

describe("received emails", () => {
  it("shares a received email: its page shows the message as it arrived", async () => {
    const inboundId = newId();
    const raw = Buffer.from(
      [
        "From: Bob <bob@example.test>",
        "To: support@acme.test",
        "Subject: A question",
        "Message-ID: <q1@example.test>",
        "MIME-Version: 1.0",
        "Content-Type: text/html; charset=utf-8",
        "",
        "<p>Where is my <i>order</i>?</p>",
        "",
      ].join("\r\n"),
    );
    const blob = await createBlobStore(file.testServices.services.database).put(raw);
    const now = formatTimestamp(new Date());
    const appended = await file.testServices.store.append(
      inboundEmailStream(inboundId),
      [
        {
          id: newId(),
          type: "InboundEmailReceived",
          data: {
            inboundId,
            teamId: file.admin.teamId,
            from: "Bob <bob@example.test>",
            to: ["support@acme.test"],
            cc: [],
            bcc: [],
            replyTo: [],
            receivedFor: ["support@acme.test"],
            mailFrom: "bob@example.test",
            messageId: "<q1@example.test>",
            subject: "A question",
            raw: { blob, size: raw.length },
            attachments: [],
            receivedAt: now,
          },
          metadata: { teamId: file.admin.teamId, actor: "test" },
        },
      ],
      "no_stream",
    );
    await file.testServices.services.waitFor(appended.position);

    expect(await share(inboundId, {}, file.other)).toMatchObject(error(404, "not_found", "Email not found"));
    const { body: link } = await share(inboundId);
    expect(link.id).toBe(inboundId);
    const page = await open(link.url);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("<h1>A question</h1>");
    expect(page.body).toContain("Bob &lt;bob@example.test&gt;");
    expect((await frameOf(link.url)).body).toContain("<p>Where is my <i>order</i>?</p>");
  });
});
