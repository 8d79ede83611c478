// A new process for the event store contract: it opens the store a URL names, through the BUILT package
// (`npx tsc -b`), resumes a subscription from a checkpoint, then appends and sees its own event live.
// Prints one JSON line: {"resumed": [ids…], "live": id}.
import { randomUUID } from "node:crypto";
import { openEventStore, parsePosition } from "@tidings/eventstore";

const [url, checkpoint, category, countText] = process.argv.slice(2);
const count = Number(countText);
setTimeout(() => {
  console.error("the resumed subscription did not deliver in time");
  process.exit(2);
}, 30_000).unref();

const { store, close } = await openEventStore(url);
const subscription = store.subscribeToAll({ after: parsePosition(checkpoint), filter: { streamCategory: [category] } });
const resumed = [];
const live = { id: randomUUID(), type: "ChildAppended", data: { pid: process.pid } };
let appended = false;
for await (const event of subscription) {
  if (appended) {
    if (event.id === live.id) break;
    continue;
  }
  resumed.push(event.id);
  if (resumed.length === count) {
    appended = true;
    await store.append(`${category}-${randomUUID()}`, [live], "no_stream");
  }
}
await close();
console.log(JSON.stringify({ resumed, live: live.id }));
