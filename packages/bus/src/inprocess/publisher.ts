import type { Kysely } from "kysely";
import { insertMessages, type MessageToInsert } from "./storage.js";

const maxPerStatement = 500;

/**
 * Publishes in call order: calls made while a statement runs wait and go together in the next one. A
 * caller may fire many publishes without awaiting each (the forwarder does) and consumers still see them
 * in that order; on PostgreSQL, separate pool connections would not keep it.
 */
export function orderedPublisher(
  db: Kysely<unknown>,
  onInserted: (subjects: string[]) => void,
): (message: MessageToInsert) => Promise<void> {
  const queue: Array<{ message: MessageToInsert; resolve: () => void; reject: (error: unknown) => void }> = [];
  let flushing = false;
  const flush = async () => {
    flushing = true;
    // Let the caller's synchronous burst (a Promise.all of publishes) join the first statement.
    await Promise.resolve();
    while (queue.length > 0) {
      const batch = queue.splice(0, maxPerStatement);
      try {
        onInserted(
          await insertMessages(
            db,
            batch.map((p) => p.message),
          ),
        );
        for (const p of batch) p.resolve();
      } catch (error) {
        for (const p of batch) p.reject(error);
      }
    }
    flushing = false;
  };
  return (message) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ message, resolve, reject });
      if (!flushing) void flush();
    });
}
