/**
 * Runs deliveries with a few at a time per endpoint (per webhook), and no bound across endpoints: a slow
 * or dead endpoint fills only its own slots, so it never delays another endpoint's or another team's
 * deliveries. A delivery already waiting is not queued twice; one asked for while it runs runs once more
 * after, so a replay arriving mid-attempt is not lost.
 */
export interface EndpointQueues {
  enqueue(endpointKey: string, deliveryId: string): void;
  /** Waits for the deliveries running now; those still waiting are left to their timers. */
  stop(): Promise<void>;
}

export function createEndpointQueues(options: { perEndpoint: number; run(deliveryId: string): Promise<void>; onError(error: unknown, deliveryId: string): void }): EndpointQueues {
  const queues = new Map<string, { waiting: string[]; running: number }>();
  const known = new Set<string>();
  const runningIds = new Set<string>();
  const again = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  let stopped = false;

  const pump = (key: string) => {
    const queue = queues.get(key);
    if (!queue) return;
    while (!stopped && queue.running < options.perEndpoint && queue.waiting.length > 0) {
      const deliveryId = queue.waiting.shift()!;
      known.delete(deliveryId);
      runningIds.add(deliveryId);
      queue.running++;
      const task = options
        .run(deliveryId)
        .catch((error) => options.onError(error, deliveryId))
        .finally(() => {
          inFlight.delete(task);
          runningIds.delete(deliveryId);
          queue.running--;
          if (again.delete(deliveryId)) enqueue(key, deliveryId);
          else if (queue.running === 0 && queue.waiting.length === 0) queues.delete(key);
          pump(key);
        });
      inFlight.add(task);
    }
  };

  const enqueue = (key: string, deliveryId: string) => {
    if (stopped || known.has(deliveryId)) return;
    if (runningIds.has(deliveryId)) {
      again.add(deliveryId);
      return;
    }
    known.add(deliveryId);
    const queue = queues.get(key) ?? { waiting: [], running: 0 };
    queues.set(key, queue);
    queue.waiting.push(deliveryId);
    pump(key);
  };

  return {
    enqueue,
    async stop() {
      stopped = true;
      await Promise.allSettled([...inFlight]);
    },
  };
}
