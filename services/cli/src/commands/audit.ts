import type { Config, Logger } from "@tidings/core";
import { formatPosition } from "@tidings/eventstore";
import { openRuntime } from "../runtime.js";

/** `tidings audit stream <stream>`: every event of a stream, oldest first, with its metadata. */
export async function auditStream(config: Config, logger: Logger, streamId: string, json: boolean): Promise<void> {
  const runtime = await openRuntime(config, logger);
  try {
    const events = await runtime.store.readStream(streamId);
    if (events.length === 0 && !json) console.log(`stream ${streamId} has no events (never written, or deleted)`);
    for (const e of events) {
      const record = {
        revision: e.revision.toString(),
        position: formatPosition(e.position),
        id: e.id,
        type: e.type,
        createdAt: e.createdAt.toISOString(),
        metadata: e.metadata,
        data: e.data,
      };
      if (json) console.log(JSON.stringify(record));
      else {
        console.log(`#${record.revision} ${record.createdAt} ${e.type} (${e.id}) at ${record.position}`);
        console.log(`  metadata ${JSON.stringify(e.metadata)}`);
        console.log(`  data     ${JSON.stringify(e.data)}`);
      }
    }
  } finally {
    await runtime.close();
  }
}
