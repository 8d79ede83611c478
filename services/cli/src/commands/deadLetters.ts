import { formatTimestamp, systemClock, TidingsError } from "@tidings/core";
import { dropDeadLetter, findDeadLetter, listDeadLetters, retryDeadLetter, type DeadLetterDeps, type ListedDeadLetter } from "@tidings/api";
import { operationMetadata } from "@tidings/commands";
import { sagaDurables } from "@tidings/sagas";
import type { CliOutput } from "../cliOutput.js";
import type { Runtime } from "../runtime.js";
import { printTable } from "../table.js";
import { UsageError } from "../usageError.js";

const depsOf = (runtime: Runtime): DeadLetterDeps => ({
  store: runtime.store,
  bus: runtime.bus,
  durables: sagaDurables,
  clock: systemClock,
});

const asJson = ({ ref, consumer, letter, event }: ListedDeadLetter) => ({
  id: ref,
  consumer,
  subject: letter.subject,
  messageId: letter.msgId,
  event,
  deliveryCount: letter.deliveryCount,
  error: letter.error,
  deadAt: formatTimestamp(letter.deadAt),
});

/** A letter that is not there is a mistake in the call (exit 2, one line), not a failure of the command. */
async function named<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof TidingsError && error.code === "not_found")
      throw new UsageError(`${error.message}: tidings deadletters list shows them`);
    throw error;
  }
}

/** `tidings deadletters list [--json]` (docs/operations.md, "Dead letters"): every saga's letters, oldest first per consumer. */
export async function deadLettersList(runtime: Runtime, json: boolean, out: CliOutput): Promise<number> {
  const letters = await listDeadLetters(depsOf(runtime));
  if (json) {
    out.out(JSON.stringify({ deadLetters: letters.map(asJson) }));
    return 0;
  }
  if (letters.length === 0) {
    out.out("no dead letters");
    return 0;
  }
  printTable(
    out,
    ["id", "event", "deliveries", "dead at", "error"],
    letters.map(({ ref, letter, event }) => [
      ref,
      event ? `${event.type} ${event.streamId}` : letter.subject,
      String(letter.deliveryCount),
      formatTimestamp(letter.deadAt),
      letter.error.length > 80 ? `${letter.error.slice(0, 79)}…` : letter.error,
    ]),
  );
  return 0;
}

/** `tidings deadletters show <id> [--json]`: one letter in full but its body, which is the sealed event. */
export async function deadLettersShow(runtime: Runtime, ref: string, json: boolean, out: CliOutput): Promise<number> {
  const item = asJson(await named(() => findDeadLetter(depsOf(runtime), ref)));
  if (json) out.out(JSON.stringify(item));
  else for (const [key, value] of Object.entries(item)) out.out(`${key}: ${typeof value === "object" ? JSON.stringify(value) : value}`);
  return 0;
}

/**
 * `tidings deadletters retry <id> | --all`: publishes each message again for its consumers and removes the
 * letter; `drop <id>` removes it. Each action is recorded as an event whose actor is `cli`.
 */
export async function deadLettersAct(
  runtime: Runtime,
  action: "retry" | "drop",
  target: { ref: string | undefined; all: boolean },
  out: CliOutput,
): Promise<number> {
  const deps = depsOf(runtime);
  if (target.all === (target.ref !== undefined))
    throw new UsageError(`deadletters ${action} needs a letter's id${action === "retry" ? " or --all" : ""}`);
  if (target.all && action === "drop") throw new UsageError("deadletters drop takes one letter's id: dropping is a decision per message");
  const refs = target.all ? (await listDeadLetters(deps)).map((item) => item.ref) : [target.ref!];
  for (const ref of refs) {
    const metadata = operationMetadata("cli", systemClock);
    const item = await named(() => (action === "retry" ? retryDeadLetter(deps, ref, metadata) : dropDeadLetter(deps, ref, metadata)));
    out.out(`${action === "retry" ? "retried" : "dropped"} ${item.ref}${item.event ? ` (${item.event.type} ${item.event.streamId})` : ""}`);
  }
  if (refs.length === 0) out.out("no dead letters");
  return 0;
}
