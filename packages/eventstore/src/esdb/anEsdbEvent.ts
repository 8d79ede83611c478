import type { AllStreamResolvedEvent, EsdbRecordedEvent } from "./client.js";

/** A recorded event as the client hands it over, for unit tests of the mapping. */
export function anEsdbEvent(overrides: Partial<EsdbRecordedEvent> = {}): EsdbRecordedEvent {
  return {
    streamId: "email-1",
    id: "0b9b2a3e-8f1c-4c1e-9a57-3c1d2e4f5a60",
    isJson: true,
    revision: 0n,
    type: "EmailQueued",
    created: new Date("2026-01-02T03:04:05.678Z"),
    data: { to: "a@example.com" },
    metadata: { teamId: "team-1" },
    position: { commit: 1000n, prepare: 1000n },
    ...overrides,
  } as EsdbRecordedEvent;
}

export function anAllEntry(overrides: Partial<EsdbRecordedEvent> = {}): AllStreamResolvedEvent {
  return { event: anEsdbEvent(overrides) } as AllStreamResolvedEvent;
}
