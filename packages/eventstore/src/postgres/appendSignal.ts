/**
 * Fans the append notifications of one database out to the subscriptions of this process. Each
 * notification carries the id of the transaction that appended.
 */
export class AppendSignal {
  /** The newest appending transaction notified so far. */
  latest = 0n;
  private readonly listeners = new Set<(tx: bigint) => void>();

  notify(payload: string): void {
    const tx = /^\d+$/.test(payload) ? BigInt(payload) : 0n;
    if (tx > this.latest) this.latest = tx;
    for (const listener of this.listeners) listener(tx);
  }

  listen(listener: (tx: bigint) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
}
