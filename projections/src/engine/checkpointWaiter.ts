import type { Database } from "@tidings/postgres";
import { comparePositions, parsePosition, type Position } from "@tidings/eventstore";
import { CHECKPOINT_CHANNEL, ensureCheckpointTable, readCheckpoints, type CheckpointNotice } from "./checkpoints.js";

export interface CheckpointWaiter {
  /**
   * Resolves true once every watched projection's live checkpoint is at or past `position` (read-your-
   * writes, docs/architecture.md §1), or false after `timeoutMs`. While a version bump rebuilds, the live checkpoint
   * stays where the old version stopped, so waits time out until the switch. `projections` narrows the
   * wait to some of the watched projections, for a reader that needs only their read models.
   */
  waitFor(position: Position, timeoutMs: number, projections?: readonly string[]): Promise<boolean>;
  /** Takes a live checkpoint known in this process, ahead of its NOTIFY. */
  observe(projection: string, position: Position): void;
  close(): Promise<void>;
}

export interface CheckpointWaiterOptions {
  /** How often pending waits re-read the checkpoints, in case a NOTIFY was missed (default 250 ms). */
  pollMs?: number;
}

interface PendingWait {
  position: Position;
  projections: readonly string[];
  resolve: (reached: boolean) => void;
  timer: NodeJS.Timeout;
}

/**
 * Follows live checkpoints from any process, including one that runs no projection (an api process):
 * NOTIFYs carry each new checkpoint, and while someone waits, a poll of the checkpoint table covers a
 * NOTIFY lost with a dropped connection.
 */
export async function createCheckpointWaiter(
  database: Database,
  projectionNames: string[],
  options: CheckpointWaiterOptions = {},
): Promise<CheckpointWaiter> {
  const pollMs = options.pollMs ?? 250;
  const watched = new Set(projectionNames);
  const live = new Map<string, Position>();
  const pending = new Set<PendingWait>();
  let poller: NodeJS.Timeout | undefined;
  let closed = false;

  const reached = (position: Position, projections: readonly string[]) =>
    projections.every((name) => {
      const at = live.get(name);
      return at !== undefined && comparePositions(at, position) >= 0;
    });

  const settle = () => {
    for (const wait of pending) {
      if (!reached(wait.position, wait.projections)) continue;
      finish(wait, true);
    }
  };

  const finish = (wait: PendingWait, result: boolean) => {
    clearTimeout(wait.timer);
    pending.delete(wait);
    if (pending.size === 0 && poller) {
      clearInterval(poller);
      poller = undefined;
    }
    wait.resolve(result);
  };

  const observe = (name: string, position: Position) => {
    if (!watched.has(name)) return;
    const at = live.get(name);
    if (at === undefined || comparePositions(position, at) > 0) live.set(name, position);
    settle();
  };

  const refresh = async () => {
    for (const checkpoint of await readCheckpoints(database.db, [...watched])) {
      if (checkpoint.state === "live") observe(checkpoint.name, checkpoint.position);
    }
  };

  await ensureCheckpointTable(database);
  const unlisten = await database.listen(CHECKPOINT_CHANNEL, (payload) => {
    const notice = JSON.parse(payload) as CheckpointNotice;
    if (notice.state === "live") observe(notice.name, parsePosition(notice.position));
  });
  await refresh();

  return {
    observe,
    waitFor(position, timeoutMs, projections = projectionNames) {
      if (closed) return Promise.reject(new Error("the checkpoint waiter is closed"));
      const unwatched = projections.filter((name) => !watched.has(name));
      if (unwatched.length > 0) return Promise.reject(new Error(`the checkpoint waiter does not watch ${unwatched.join(", ")}`));
      if (reached(position, projections)) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const wait: PendingWait = { position, projections, resolve, timer: setTimeout(() => finish(wait, false), timeoutMs) };
        pending.add(wait);
        poller ??= setInterval(() => void refresh().catch(() => {}), pollMs);
      });
    },
    async close() {
      closed = true;
      for (const wait of [...pending]) finish(wait, false);
      await unlisten();
    },
  };
}
