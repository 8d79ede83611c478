import { domainToASCII } from "node:url";
import { DomainError } from "../decider.js";
import {
  capabilityStates,
  domainRegions,
  tlsModes,
  type Capabilities,
  type DomainRegion,
  type DomainSettings,
  type TlsMode,
} from "./events.js";

export const DEFAULT_REGION: DomainRegion = "us-east-1";
export const DEFAULT_TLS: TlsMode = "opportunistic";
export const DEFAULT_RETURN_PATH = "send";
export const DEFAULT_TRACKING_SUBDOMAIN = "links";
export const DEFAULT_CAPABILITIES: Capabilities = { sending: "enabled", receiving: "disabled" };

const invalid = (message: string) => new DomainError("validation_error", message);

/** A DNS label as RFC 1123 has it: letters, digits and inner hyphens, 1 to 63 characters. */
const labelPattern = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
export const isDnsLabel = (value: string) => labelPattern.test(value);

/**
 * The stored form of a domain name: lower-case, an IDN as punycode (`münchen.de` → `xn--mnchen-3ya.de`),
 * no trailing dot. Undefined when it is not a fully qualified domain name: at least two labels, each a
 * DNS label, at most 253 characters, and a top-level label that is not all digits (not an IP address).
 */
export function normalizeDomainName(input: string): string | undefined {
  const trimmed = input.trim().replace(/\.$/, "");
  if (trimmed.length === 0 || /[\s/:@]/.test(trimmed)) return undefined;
  const ascii = domainToASCII(trimmed);
  if (!ascii || ascii.length > 253) return undefined;
  const labels = ascii.split(".");
  if (labels.length < 2 || !labels.every(isDnsLabel) || /^\d+$/.test(labels[labels.length - 1]!)) return undefined;
  return ascii;
}

const isOneOf = <Value extends string>(values: readonly Value[], value: string): value is Value =>
  (values as readonly string[]).includes(value);

const regionError = () => new DomainError("invalid_region", `The \`region\` field must be one of ${domainRegions.join(", ")}.`);

export const checkRegion = (region: string): DomainError | undefined => (isOneOf(domainRegions, region) ? undefined : regionError());

/**
 * Settings as a command carries them: a caller may send any text where an enum belongs, so those fields
 * are plain strings until `checkDomainSettings` has read them.
 */
export type DomainSettingsInput = Omit<DomainSettings, "region" | "tls" | "capabilities"> & {
  region: string;
  tls: string;
  capabilities: Record<keyof Capabilities, string>;
};

const capabilityError = (which: keyof Capabilities) => invalid(`The \`capabilities.${which}\` field must be \`enabled\` or \`disabled\`.`);

/** The rules a domain's settings keep at creation and after every update: the settings as kept, or the first rule broken. */
export function checkDomainSettings(settings: DomainSettingsInput): DomainSettings | DomainError {
  const {
    region,
    tls,
    capabilities: { sending, receiving },
  } = settings;
  if (!isOneOf(domainRegions, region)) return regionError();
  if (!isOneOf(tlsModes, tls)) return invalid(`The \`tls\` field must be one of ${tlsModes.join(", ")}.`);
  if (!isOneOf(capabilityStates, sending)) return capabilityError("sending");
  if (!isOneOf(capabilityStates, receiving)) return capabilityError("receiving");
  // docs/wire-compatibility.md §10.7, POST /domains and PATCH: at least one capability stays enabled.
  if (sending === "disabled" && receiving === "disabled")
    return invalid("The `capabilities` field must keep at least one of `sending` and `receiving` enabled.");
  if (!isDnsLabel(settings.trackingSubdomain))
    return invalid("The `tracking_subdomain` field must be a DNS label: 1 to 63 letters, digits or inner hyphens.");
  if (!isDnsLabel(settings.customReturnPath))
    return invalid("The `custom_return_path` field must be a DNS label: 1 to 63 letters, digits or inner hyphens.");
  return { ...settings, region, tls, capabilities: { sending, receiving } };
}
