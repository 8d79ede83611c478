import { z } from "zod";
import { addrSpec, CONTACT_EMAIL_MAX } from "@tidings/domain";

/*
 * Strings the domain checks itself, so that its errors keep the contract's wording: the schemas take any
 * string and document the domain's rule in `.meta()`, JSON Schema keywords that zod does not enforce.
 */

/** A bare address, `name@example.com`. */
export const emailAddressText = () => z.string().meta({ format: "email", maxLength: CONTACT_EMAIL_MAX });

/** A domain name; an IDN is accepted and stored as punycode. */
export const domainNameText = () => z.string().meta({ format: "idn-hostname", maxLength: 253 });

/** One DNS label: letters, digits and inner hyphens. */
export const dnsLabelText = () => z.string().meta({ pattern: "^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$" });

/** An absolute URL. */
export const urlText = () => z.string().meta({ format: "uri" });

/** `a@b.c` or `Name <a@b.c>`, as the domain's `parseMailbox` reads a sender or recipient. */
export const mailboxText = () =>
  z.string().meta({
    anyOf: [{ format: "email", pattern: addrSpec.source }, { pattern: `^[^<>]*<${addrSpec.source.slice(1, -1)}>$` }],
  });
