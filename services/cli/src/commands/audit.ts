import { formatPosition } from "@tidings/eventstore";
import type { CliOutput } from "../cliOutput.js";
import type { Runtime } from "../runtime.js";

/** `tidings audit stream <stream>`: every event of a stream, oldest first, with its metadata. */
export async function auditStream(runtime: Runtime, streamId: string, json: boolean, out: CliOutput): Promise<number> {
  const events = await runtime.store.readStream(streamId);
  if (events.length === 0 && !json) out.out(`stream ${streamId} has no events (never written, or deleted)`);
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
    if (json) out.out(JSON.stringify(record));
    else {
      out.out(`#${record.revision} ${record.createdAt} ${e.type} (${e.id}) at ${record.position}`);
      out.out(`  metadata ${JSON.stringify(e.metadata)}`);
      out.out(`  data     ${JSON.stringify(e.data)}`);
    }
  }
  return 0;
}
