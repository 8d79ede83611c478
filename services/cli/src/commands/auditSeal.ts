import { comparePositions, parsePosition, sealKeys, sealStore, type EventStore } from "@tidings/eventstore";
import type { CliOutput } from "../cliOutput.js";

/**
 * `tidings audit seal`: appends a seal now, even when nothing came since the last, and as many more as it
 * takes to cover the store's head (docs/operations.md, "Integrity").
 */
export async function auditSeal(store: EventStore, secret: string, output: CliOutput): Promise<number> {
  const keys = sealKeys(secret);
  // A seal covers at most MAX_EVENTS_PER_SEAL events: as many follow as it takes to cover the head as it was
  // now, however much is appended meanwhile. A periodic sealer may append one in between; the next goes on
  // after it.
  const target = await store.headPosition();
  for (let racedBy = 0; ;) {
    const outcome = await sealStore(store, { keys, force: true });
    if (!outcome.sealed) {
      if (outcome.reason === "another process sealed first" && ++racedBy < 10) continue;
      output.err(`not sealed: ${outcome.reason}; run it again`);
      return 1;
    }
    const { seal } = outcome;
    output.out(`seal #${seal.sequence} covers ${seal.events} events from ${seal.from ?? "the start"} to ${seal.until}`);
    if (!outcome.more || comparePositions(parsePosition(seal.until), target) >= 0) break;
  }
  output.out(`public key ${keys.publicKey}`);
  return 0;
}

/** `tidings audit public-key`: the key auditors check seals with; publish it where the operator cannot rewrite it. */
export function auditPublicKey(secret: string, output: CliOutput): number {
  output.out(sealKeys(secret).publicKey);
  return 0;
}
