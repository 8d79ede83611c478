import type { DomainSettings, RecordTargets } from "../domain/events.js";
import { DEFAULT_CAPABILITIES } from "../domain/rules.js";

/** A domain's settings as a create without options makes them, but in the region the test names. */
export const aDomainSettings = (overrides: Partial<DomainSettings> = {}): DomainSettings => ({
  region: "us-east-1",
  tls: "opportunistic",
  capabilities: DEFAULT_CAPABILITIES,
  openTracking: false,
  clickTracking: false,
  trackingSubdomain: "links",
  customReturnPath: "send",
  ...overrides,
});

/** Where records point in tests: hosts under `mail.test`. */
export const testRecordTargets: RecordTargets = {
  dkimSelector: "tidings",
  mailHost: "mx.mail.test",
  spfInclude: "spf.mail.test",
  inboundHost: "inbound.mail.test",
  trackingHost: "track.mail.test",
};
