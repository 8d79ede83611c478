// Events that carry personal data, shaped like the real traffic, for the benchmarks that compare the store
// with and without sealing (docs/privacy.md): per person, a contact stream (ContactCreated, with names and
// a property) and two email streams to them (EmailQueued with to, subject, html and text; EmailSent;
// EmailDelivered with its recipients and the relay's reply; and, for the first email, EmailOpened with an
// IP address and user agent). Eight events a person. Everything is derived from the person's index, ids
// included, so two stores given the same range get byte-identical events, and read models built from them
// must come out with the same checksums.
import { createHash } from "node:crypto";

export const eventsPerPerson = 8;
export const teams = Array.from({ length: 7 }, (_, n) => uuidOf("team", n));

/** A stable v4-shaped UUID from a label and a number. */
export function uuidOf(label, n) {
  const h = createHash("sha256").update(`${label}:${n}`).digest();
  h[6] = (h[6] & 0x0f) | 0x40;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString("hex");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

const firstNames = ["Alice", "Bruno", "Chloé", "Dmitri", "Esther", "Farid", "Grace", "Hiro"];
const lastNames = ["Martin", "Okafor", "Lindqvist", "Nakamura", "Rossi", "Haddad", "Schmidt", "Dubois"];
const base = Date.parse("2026-11-01T00:00:00Z");
const at = (n, offsetSeconds) => new Date(base + n * 1000 + offsetSeconds * 1000).toISOString();

/**
 * The streams of person `n`: `[{ streamId, events }]`, each stream appended with expected revision
 * `no_stream`. Every event carries its team in the metadata, as commands write it.
 */
export function personStreams(n) {
  const teamId = teams[n % teams.length];
  const metadata = { teamId, actor: "bench" };
  const firstName = firstNames[n % firstNames.length];
  const lastName = lastNames[(n >> 3) % lastNames.length];
  const email = `${firstName.toLowerCase()}.${lastName.toLowerCase()}.${n}@example.com`;
  const contactId = uuidOf("contact", n);
  const event = (kind, type, data) => ({ id: uuidOf(`${kind}:${type}`, n), type, data, metadata });
  const contact = {
    streamId: `contact-${contactId}`,
    events: [
      event("contact", "ContactCreated", {
        contactId,
        teamId,
        email,
        firstName,
        lastName,
        unsubscribed: false,
        properties: { plan: n % 3 === 0 ? "pro" : "free", city: "Lyon" },
        segmentIds: [],
        topics: [],
        createdAt: at(n, 0),
      }),
    ],
  };
  const mail = (which, opened) => {
    const emailId = uuidOf(`email${which}`, n);
    const kind = `email${which}`;
    const subject = which === 0 ? `Your order #${100000 + n} has shipped` : `Receipt for order #${100000 + n}`;
    const html =
      `<p>Hello ${firstName},</p><p>Thank you for your order #${100000 + n}. ` +
      `Your parcel is on its way to ${firstName} ${lastName}, and you can follow it ` +
      `<a href="https://shop.example/track/${n}">here</a>.</p><p>Questions? Reply to this email.</p>`;
    const events = [
      event(kind, "EmailQueued", {
        emailId,
        teamId,
        from: "Shop <orders@shop.example>",
        to: [email],
        cc: [],
        bcc: [],
        replyTo: [],
        subject,
        html,
        text: html.replace(/<[^>]+>/g, ""),
        headers: {},
        tags: [{ name: "kind", value: "order" }],
        attachments: [],
        templateId: null,
        templateVersion: null,
        domainId: null,
        createdAt: at(n, 1 + which),
      }),
      event(kind, "EmailSent", { emailId, sentAt: at(n, 2 + which) }),
      event(kind, "EmailDelivered", {
        emailId,
        deliveredAt: at(n, 3 + which),
        response: `250 2.0.0 OK: queued as ${emailId.slice(0, 12)} <${email}>`,
        code: 250,
        recipients: [email],
      }),
    ];
    if (opened)
      events.push(
        event(kind, "EmailOpened", {
          emailId,
          openedAt: at(n, 600),
          ipAddress: `198.51.100.${n % 250}`,
          userAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)",
          machine: false,
          machineReason: null,
        }),
      );
    return { streamId: `email-${emailId}`, events };
  };
  return [contact, mail(0, true), mail(1, false)];
}
