import type { EmailContent } from "../email/events.js";

/** A test builder: a queued email's content to one recipient, with what a test cares about overridden. */
export const anEmailContent = (overrides: Partial<EmailContent> = {}): EmailContent => ({
  emailId: "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a",
  teamId: "5c1f3c4e-6a0b-4d2c-9e8f-1a2b3c4d5e6f",
  from: "Acme <hi@acme.test>",
  to: ["ann@example.test"],
  cc: [],
  bcc: [],
  replyTo: [],
  subject: "Hello",
  html: "<p>Hi</p>",
  text: "Hi",
  headers: {},
  tags: [],
  attachments: [],
  templateId: null,
  templateVersion: null,
  domainId: null,
  createdAt: "2026-11-23 10:00:00.000000+00",
  ...overrides,
});
