import type pg from "pg";
import { quoteIdent } from "./quoteIdent.js";

/** Longest pause between two tries to listen again while the server is away. */
const maxRetryMs = 2_000;

/**
 * LISTEN on a connection of its own that is opened again, and listens again, whenever the server ends
 * it (a restart, a failover): a LISTEN lives and dies with its session, and without this every
 * subscriber would fall back to its poll for the rest of the process's life. Notifications sent while
 * no session listened are lost; those who listen poll as well for that reason.
 */
export async function resumingListen(
  connect: () => Promise<pg.Client>,
  end: (client: pg.Client) => Promise<void>,
  channel: string,
  onNotify: (payload: string) => void,
): Promise<() => Promise<void>> {
  let stopped = false;
  let current: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  const listen = async () => {
    const client = await connect();
    client.on("notification", (n) => {
      if (n.channel === channel) onNotify(n.payload ?? "");
    });
    client.once("end", () => {
      if (current !== client || stopped) return;
      current = undefined;
      void resume(100);
    });
    current = client;
    try {
      await client.query(`LISTEN ${quoteIdent(channel)}`);
    } catch (error) {
      if (current === client) current = undefined;
      await end(client);
      throw error;
    }
    if (stopped) await end(client);
  };
  const resume = async (delayMs: number) => {
    await new Promise<void>((resolve) => (retry = setTimeout(resolve, delayMs)));
    if (stopped) return;
    await listen().catch(() => resume(Math.min(delayMs * 2, maxRetryMs)));
  };

  // The first LISTEN's failure is the caller's to see.
  await listen();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    if (current) await end(current);
  };
}
