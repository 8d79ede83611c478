import { handleCommand, loadState } from "@tidings/commands";
import { newId } from "@tidings/core";
import { domainDecider, domainStream } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";

/**
 * Records a domain created through the api as verified, as if DNS had answered every record as listed (the
 * DNS side is the saga's tests).
 */
export async function recordVerified(store: EventStore, domainId: string, now: string): Promise<void> {
  const state = await loadState(store, domainStream(domainId), domainDecider);
  const records = state.status === "active" ? state.records : [];
  const results = records.map((r) => ({ key: r.key, name: r.name, value: r.value, status: "verified" as const }));
  await handleCommand({
    store,
    streamId: domainStream(domainId),
    decider: domainDecider,
    command: { type: "RecordDomainCheck", checkId: newId(), results, now },
    metadata: { actor: "test" },
  });
}
