import { isIP } from "node:net";
import { z } from "zod";
import { parseDuration } from "./duration.js";

// The kinds of value the settings take (settings.ts): schemas, and for the common ones the text of what they accept.

/** A URL with one of `protocols` (`"https:"`, with the colon). */
export const url = (protocols: string[]) =>
  z.string().refine((v) => {
    try {
      return protocols.includes(new URL(v).protocol);
    } catch {
      return false;
    }
  });

export const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/**
 * A whole number from `min` to `max`, `fallback` when unset. What it accepts is `what` followed by the range
 * and the default (`shown`, where the number alone says too little), so the text cannot drift from the schema.
 */
export const between = (min: number, max: number, fallback: number, what: string, shown = String(fallback)) => ({
  schema: int(min, max).default(fallback),
  accepts: `${what}, ${min} to ${max} (default ${shown})`,
});

/** A share from 0 to 1, `fallback` when unset; 0 turns off what it sets off. */
export const share = (fallback: number, what: string) => ({
  schema: z.coerce.number().min(0).max(1).default(fallback),
  accepts: `${what}, 0 to 1, 0 for never (default ${fallback})`,
});

/** `true` or `false`, `fallback` when unset. */
export const flag = (fallback: "true" | "false", accepts: string) => ({
  schema: z
    .enum(["true", "false"])
    .default(fallback)
    .transform((v) => v === "true"),
  accepts,
});

/** Comma-separated milliseconds, a schedule of waits; `fallback` when unset. */
export const milliseconds = (fallback: string, accepts: string) => ({
  schema: z
    .string()
    .regex(/^\d+(,\d+)*$/)
    .default(fallback)
    .transform((v) => v.split(",").map(Number)),
  accepts,
});
/**
 * How long a kind of data is kept (docs/privacy.md, "Retention"): milliseconds, or null for `0` or `off`,
 * kept for ever; `fallback` when unset. Null rather than 0, so no caller can take "off" for "keep nothing".
 */
export const retention = (fallback: string, what: string) => ({
  schema: z
    .string()
    .refine((v) => parseDuration(v) !== undefined)
    .default(fallback)
    .transform((v) => parseDuration(v) ?? null),
  accepts: `${what}: a whole number of s, m, h or d (10s, 30m, 12h, 90d) up to 36500d, or 0 or off to keep it for ever (default ${fallback})`,
});

export const dnsLabel = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
/** Underscores are allowed: DNS names such as `_spf.example.com` are not host names, but records point at them. */
const dnsNameLabel = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
export const hostname = z
  .string()
  .transform((v) => v.toLowerCase().replace(/\.$/, ""))
  .refine((v) => v.length <= 253 && v.split(".").every((label) => dnsNameLabel.test(label)));

export const isResolverAddress = (v: string) => {
  const bracketed = /^\[(.+)\](?::(\d{1,5}))?$/.exec(v);
  if (bracketed) return isIP(bracketed[1]!) === 6 && Number(bracketed[2] ?? 53) <= 65535;
  if (isIP(v)) return true;
  const [ip, port, ...rest] = v.split(":");
  return rest.length === 0 && isIP(ip!) === 4 && /^\d{1,5}$/.test(port ?? "") && Number(port) <= 65535;
};

/** An address or a CIDR block of it, as a proxy to trust is named. */
export const isProxyAddress = (v: string) => {
  const [address, bits, ...rest] = v.split("/");
  const family = isIP(address ?? "");
  if (family === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
};
