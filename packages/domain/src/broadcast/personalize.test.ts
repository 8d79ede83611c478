import { describe, expect, it } from "vitest";
import { personalizeBroadcast, type PersonalizeInput } from "./personalize.js";

const base: PersonalizeInput = {
  subject: "Hi {{{contact.first_name|there}}}",
  html: null,
  text: null,
  contact: { email: "ann@example.test", firstName: "Ann", lastName: null, properties: { plan: "pro", city: null } },
  propertyFallbacks: { city: "your city", plan: "free" },
  unsubscribeUrl: "https://t.test/unsubscribe/abc.def",
};

describe("personalizeBroadcast", () => {
  it("renders contact fields in the current and the legacy forms", () => {
    const out = personalizeBroadcast({ ...base, text: "{{{FIRST_NAME|friend}}} {{{contact.email}}} {{{EMAIL}}} plan {{{contact.plan}}}" });
    expect(out.subject).toBe("Hi Ann");
    expect(out.text).toBe("Ann ann@example.test ann@example.test plan pro");
  });

  it("takes the inline fallback first, then the property's own fallback_value, then nothing", () => {
    const out = personalizeBroadcast({
      ...base,
      text: "[{{{contact.last_name|Smith}}}] [{{{contact.city}}}] [{{{contact.city|Paris}}}] [{{{contact.last_name}}}] [{{{contact.unknown}}}]",
    });
    expect(out.text).toBe("[Smith] [your city] [Paris] [] []");
  });

  it("puts the contact's unsubscribe URL in both placeholders, and leaves other placeholders as written", () => {
    const out = personalizeBroadcast({ ...base, text: "{{{SERVICE_UNSUBSCRIBE_URL}}} {{{RESEND_UNSUBSCRIBE_URL}}} {{{OTHER}}}" });
    expect(out.text).toBe("https://t.test/unsubscribe/abc.def https://t.test/unsubscribe/abc.def {{{OTHER}}}");
  });

  it("escapes values in html but not in text or subject", () => {
    const contact = { ...base.contact, firstName: "<b>Ann & Co</b>" };
    const out = personalizeBroadcast({ ...base, contact, html: "<p>{{{contact.first_name}}}</p>", text: "{{{contact.first_name}}}" });
    expect(out.html).toBe("<p>&lt;b&gt;Ann &amp; Co&lt;/b&gt;</p>");
    expect(out.text).toBe("<b>Ann & Co</b>");
    expect(out.subject).toBe("Hi <b>Ann & Co</b>");
  });

  it("does not render placeholders that a contact's value carries", () => {
    const contact = { ...base.contact, firstName: "{{{contact.email}}}" };
    expect(personalizeBroadcast({ ...base, contact }).subject).toBe("Hi {{{contact.email}}}");
  });
});
