/**
 * Runs deliveries with a few at a time per endpoint (per webhook), and no bound across endpoints: a slow
 * or dead endpoint fills only its own slots, so it never delays another endpoint's or another team's
 * deliveries. A delivery already waiting is not queued twice; one asked for while it runs runs once more
 * after, so a replay arriving mid-attempt is not lost. A slot bounds the requests an endpoint has open:
 * a run hands its slot back (`leave`) once its request is answered, and records the outcome outside it.
 */
export interface EndpointQueues<Known> {
  /** `known`: what the caller already knows of the delivery, handed to `run` (dropped if it is already waiting). */
  enqueue(endpointKey: string, deliveryId: string, known?: Known): void;
  /** Whether the delivery is waiting or running here. */
  holds(deliveryId: string): boolean;
  /** Aborts the `stopping` of the deliveries running now and waits for them; those still waiting are left to the sweep. */
  stop(): Promise<void>;
}

export function createEndpointQueues<Known = never>(options: {
  perEndpoint: number;
  run(deliveryId: string, endpointKey: string, known: Known | undefined, leave: () => void, stopping: AbortSignal): Promise<void>;
  onError(error: unknown, deliveryId: string): void;
}): EndpointQueues<Known> {
  const queues = new Map<string, { waiting: string[]; running: number }>();
  const waitingIds = new Map<string, Known | undefined>();
  const runningIds = new Set<string>();
  const again = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  const stopping = new AbortController();
  let stopped = false;

  const pump = (key: string) => {
    const queue = queues.get(key);
    if (!queue) return;
    while (!stopped && queue.running < options.perEndpoint && queue.waiting.length > 0) {
      const deliveryId = queue.waiting.shift()!;
      const known = waitingIds.get(deliveryId);
      waitingIds.delete(deliveryId);
      runningIds.add(deliveryId);
      queue.running++;
      let left = false;
      const leave = () => {
        if (left) return;
        left = true;
        queue.running--;
        pump(key);
      };
      const task = Promise.resolve()
        .then(() => options.run(deliveryId, key, known, leave, stopping.signal))
        .catch((error) => options.onError(error, deliveryId))
        .finally(() => {
          inFlight.delete(task);
          runningIds.delete(deliveryId);
          leave();
          if (again.delete(deliveryId)) enqueue(key, deliveryId);
          else if (queue.running === 0 && queue.waiting.length === 0 && queues.get(key) === queue) queues.delete(key);
        });
      inFlight.add(task);
    }
  };

  const enqueue = (key: string, deliveryId: string, known?: Known) => {
    if (stopped || waitingIds.has(deliveryId)) return;
    if (runningIds.has(deliveryId)) {
      again.add(deliveryId);
      return;
    }
    waitingIds.set(deliveryId, known);
    const queue = queues.get(key) ?? { waiting: [], running: 0 };
    queues.set(key, queue);
    queue.waiting.push(deliveryId);
    pump(key);
  };

  return {
    enqueue,
    holds: (deliveryId) => waitingIds.has(deliveryId) || runningIds.has(deliveryId),
    async stop() {
      stopped = true;
      stopping.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}
