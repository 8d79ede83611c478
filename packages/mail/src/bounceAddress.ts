/**
 * The envelope sender (Return-Path) of an email from a domain of the team: an address on the domain's
 * return path (`send.<domain>`, whose MX and SPF records point at us), so SPF aligns, and a variable one
 * (VERP) that names the email, so a bounce that comes back later says which email and recipient it is about
 * even when it quotes nothing of the message.
 */
export const bounceAddressFor = (emailId: string, returnPathDomain: string) => `bounce+${emailId}@${returnPathDomain}`;

const bounceAddress = /^bounce\+([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@/i;

/** The email a bounce address names, or null when it is not one. */
export const emailIdOfBounceAddress = (address: string) => bounceAddress.exec(address)?.[1]?.toLowerCase() ?? null;
