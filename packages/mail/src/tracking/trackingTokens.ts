import { createHmac, timingSafeEqual } from "node:crypto";
import { deriveKey } from "@tidings/core";

/**
 * Open and click tokens. A token carries what its request records (the email id; for a click the link's
 * index and its target) and an HMAC over it, so the api answers a tracking request without a database
 * lookup, and a changed character makes the token worthless. The target travels in the token: the
 * redirect needs no read, and an email's links keep working whatever happens to the stores.
 *
 * Layout, base64url: 16 bytes of email uuid [+ 2 bytes link index + the URL in UTF-8], `.`, then 16 bytes
 * of HMAC-SHA256 over the kind and those bytes (an open token cannot pass for a click's).
 */
export interface ClickClaims {
  emailId: string;
  linkIndex: number;
  url: string;
}

type Kind = "open" | "click";

const macBytes = 16;
const keys = new Map<string, Buffer>();
function keyFor(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    key = deriveKey(secret, "tracking-link");
    keys.set(secret, key);
  }
  return key;
}

const mac = (secret: string, kind: Kind, body: Buffer) =>
  createHmac("sha256", keyFor(secret)).update(kind).update(body).digest().subarray(0, macBytes);
const uuidBytes = (id: string) => Buffer.from(id.replace(/-/g, ""), "hex");
const uuidText = (bytes: Buffer) => bytes.toString("hex").replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, "$1-$2-$3-$4-$5");
const seal = (secret: string, kind: Kind, body: Buffer) => `${body.toString("base64url")}.${mac(secret, kind, body).toString("base64url")}`;

function open(secret: string, kind: Kind, token: string): Buffer | undefined {
  const [body, signature, extra] = token.split(".");
  if (!body || !signature || extra !== undefined) return undefined;
  const bytes = Buffer.from(body, "base64url");
  const given = Buffer.from(signature, "base64url");
  if (bytes.length < 16 || given.length !== macBytes || !timingSafeEqual(given, mac(secret, kind, bytes))) return undefined;
  return bytes;
}

export const openToken = (secret: string, emailId: string) => seal(secret, "open", uuidBytes(emailId));

export function clickToken(secret: string, claims: ClickClaims): string {
  const index = Buffer.alloc(2);
  index.writeUInt16BE(claims.linkIndex);
  return seal(secret, "click", Buffer.concat([uuidBytes(claims.emailId), index, Buffer.from(claims.url, "utf8")]));
}

/** The email of an open token this secret signed; undefined for anything else. */
export function readOpenToken(secret: string, token: string): string | undefined {
  const bytes = open(secret, "open", token);
  return bytes?.length === 16 ? uuidText(bytes) : undefined;
}

/** The claims of a click token this secret signed; undefined for anything else. */
export function readClickToken(secret: string, token: string): ClickClaims | undefined {
  const bytes = open(secret, "click", token);
  if (!bytes || bytes.length < 19) return undefined;
  return { emailId: uuidText(bytes.subarray(0, 16)), linkIndex: bytes.readUInt16BE(16), url: bytes.subarray(18).toString("utf8") };
}
