import { describe, expect, it } from "vitest";
import { broadcastEmailId } from "@tidings/core";
import type { BroadcastRecord } from "@tidings/domain";
import { readUnsubscribeToken } from "@tidings/mail";
import { recipientEmail, textTemplateOf, type RecipientEmailInput } from "./broadcastEmail.js";

const secret = "s".repeat(40);
const broadcast: BroadcastRecord = {
  status: "sending",
  broadcastId: "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a",
  teamId: "5c1f3c4e-6a0b-4d2c-9e8f-1a2b3c4d5e6f",
  origin: "api",
  content: {
    name: null,
    segmentId: "1d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a",
    from: "News <news@acme.test>",
    subject: "Hi {{{FIRST_NAME|there}}}",
    html: '<p>Hello {{{contact.first_name|friend}}}, <a href="{{{SERVICE_UNSUBSCRIBE_URL}}}">unsubscribe</a></p>',
    text: null,
    replyTo: ["help@acme.test"],
    previewText: null,
    topicId: null,
  },
  scheduledAt: null,
  domainId: null,
  queuedAt: null,
  plannedBatches: 1,
  plannedRecipients: 1,
  queuedBatches: 0,
  totalBatches: 1,
};
const contactId = "2d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const input = (overrides: Partial<RecipientEmailInput> = {}): RecipientEmailInput => ({
  broadcast,
  recipient: { contactId, email: "ann@example.test" },
  contact: { email: "ann@example.test", firstName: "Ann", lastName: null, properties: {} },
  propertyFallbacks: {},
  links: { publicUrl: "https://t.test/", secret, mailHost: "mail.t.test", validForMs: 3_600_000 },
  textTemplate: textTemplateOf(broadcast.content.html),
  now: new Date("2026-11-23T10:00:00Z"),
  ...overrides,
});

describe("recipientEmail", () => {
  it("is the contact's email under the id derived from the broadcast and the contact, marked with the broadcast", () => {
    const email = recipientEmail(input());
    expect(email).toMatchObject({
      emailId: broadcastEmailId(broadcast.broadcastId, contactId),
      to: ["ann@example.test"],
      replyTo: ["help@acme.test"],
      subject: "Hi Ann",
      broadcastId: broadcast.broadcastId,
    });
    expect(recipientEmail(input()).emailId).toBe(email.emailId);
  });

  it("carries the contact's signed unsubscribe link in the html and in List-Unsubscribe, with a mailto and one-click", () => {
    const email = recipientEmail(input());
    const url = /<(https:\/\/t\.test\/unsubscribe\/[^>]+)>/.exec(email.headers["List-Unsubscribe"]!)![1]!;
    expect(email.headers["List-Unsubscribe"]).toMatch(/, <mailto:unsubscribe@mail\.t\.test\?subject=unsubscribe%20[^>]+>$/);
    expect(email.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    expect(email.html).toContain(`href="${url}"`);
    expect(readUnsubscribeToken(secret, url.split("/").at(-1)!, new Date("2026-11-23T10:30:00Z"))).toMatchObject({
      contactId,
      teamId: broadcast.teamId,
      topicId: null,
    });
  });

  it('generates the text from the html, the same with the shared template as per recipient, and none for text: ""', () => {
    const shared = recipientEmail(input()).text;
    expect(shared).toMatch(/^Hello Ann, unsubscribe\s+\[https:\/\/t\.test\/unsubscribe\//);
    expect(recipientEmail(input({ textTemplate: null })).text).toBe(shared);
    expect(recipientEmail(input({ broadcast: { ...broadcast, content: { ...broadcast.content, text: "" } } })).text).toBeNull();
  });

  it("does not share a generated text whose placeholders generation changed", () => {
    // Line wrapping splits a long fallback: each recipient's text is then generated from their own html.
    expect(textTemplateOf(`<p>Hi {{{contact.first_name|${"dear reader ".repeat(12)}}}}</p>`)).toBeNull();
    expect(textTemplateOf("<p>Hi {{{contact.first_name|reader}}}</p>")).toBe("Hi {{{contact.first_name|reader}}}");
  });
});
