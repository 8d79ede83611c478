import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { inboundMailSuite, smtpError } from "../support/inboundMail.js";
import { deliveryStatusReport } from "../support/mailReports.js";

/** A relay's delivery-status reports, sent back through real SMTP to the inbound listener at an email's return path. */
const mail = inboundMailSuite();

describe("asynchronous bounces", () => {
  it("records a relay's later bounce, sent back to the email's bounce address: bounced, email.bounced, suppressed", async () => {
    const { resend, inbound, domain, webhookFor, eventsOf, deliveredTo, suppressions } = mail;
    const to = `erin-${randomUUID().slice(0, 6)}@example.test`;
    const { data: sent } = await resend.emails.send({ from: `Acme <news@${domain}>`, to, subject: "Relayed", html: "<p>Relayed</p>" });
    const [relayed] = await deliveredTo(to);
    expect(relayed!.envelope.from).toMatch(new RegExp(`^bounce\\+${sent!.id}\\.[0-9a-f]{16}@send\\.`));
    // The sink has the message before the saga records the relay's 250: give it the time a loaded machine takes.
    await expect.poll(async () => (await resend.emails.get(sent!.id)).data?.last_event, { timeout: 20_000 }).toBe("delivered");

    const raw = deliveryStatusReport(relayed!.raw, to, "5.1.1", "550 5.1.1 user unknown");
    // An address we did not make names no email, though it names the id the Message-ID shows everyone.
    const forged = `bounce+${sent!.id}.0123456789abcdef@send.${domain}`;
    expect((await inbound.sendMail({ envelope: { from: "", to: [forged] }, raw })).response).toMatch(/^250 /);
    expect(await eventsOf(`email-${sent!.id}`, "EmailBounced")).toBe(0);

    const dsn = { envelope: { from: "", to: [relayed!.envelope.from] }, raw };
    expect((await inbound.sendMail(dsn)).response).toMatch(/^250 /);
    await inbound.sendMail(dsn);
    expect(await eventsOf(`email-${sent!.id}`, "EmailBounced")).toBe(1);
    const [bounced] = await webhookFor("email.bounced", sent!.id);
    expect(bounced!.data).toMatchObject({ email_id: sent!.id, bounce: { type: "Permanent", message: "550 5.1.1 user unknown" } });
    expect((await resend.emails.get(sent!.id)).data?.last_event).toBe("bounced");
    expect(await suppressions("bounce")).toContainEqual(expect.objectContaining({ email: to, origin: "bounce", source_id: sent!.id }));
  });

  it("takes only reports at a return path", async () => {
    const { inbound, domain } = mail;
    const plain = await smtpError(
      inbound.sendMail({ from: "x@elsewhere.test", to: `someone@send.${domain}`, subject: "Hello", text: "Not a report" }),
    );
    expect(plain).toMatchObject({ responseCode: 550 });
  });
});
