import {
  describeReport,
  isSeal,
  parsePosition,
  SEAL_STREAM,
  sealKeys,
  START,
  verifyStore,
  type EventStore,
  type SealData,
} from "@tidings/eventstore";
import type { CheckResult } from "./installationChecks.js";

/**
 * `audit verify` over the latest events: the last seal's stretch and everything after it, so the newest
 * signature and the hash chain since are checked in the time of one seal interval's events, not the
 * whole store's (`tidings audit verify` walks it all). Without a seal yet, the whole store is walked.
 */
export async function auditCheck(storedEvents: EventStore, secret: string): Promise<CheckResult> {
  const check = "audit";
  const [last] = await storedEvents.readStream(SEAL_STREAM, { direction: "backwards", maxCount: 1 });
  const seal = last && isSeal(last) ? (last.data as SealData) : undefined;
  const after = seal?.from ? parsePosition(seal.from) : START;
  const report = await verifyStore(storedEvents, { after, publicKey: sealKeys(secret).publicKey });
  const walked = seal
    ? `seal #${seal.sequence} and the ${report.events} events from the seal before it`
    : `${report.events} events (no seal yet)`;
  if (report.ok) return { check, ok: true, detail: `${walked}: intact` };
  return {
    check,
    ok: false,
    detail: describeReport(report)[0]!,
    fix: "run tidings audit verify over the whole store, and read docs/operations.md, Integrity, before anything writes again",
  };
}
