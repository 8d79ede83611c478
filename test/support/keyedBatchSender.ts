import { setTimeout as sleep } from "node:timers/promises";
import type { Resend } from "resend";

/** One answer of the api to a batch send: its status (null when nothing answered), error name, and whether an error had the error shape. */
export interface BatchAnswer {
  at: number;
  status: number | null;
  name: string;
  shaped: boolean;
}

export interface KeyedBatchSending {
  /** Each accepted email's id, by its number. */
  accepted: Map<number, string>;
  answers: BatchAnswer[];
  /** While true the senders do not wait for the sink: the api meets a disruption with requests in flight. */
  pressing: boolean;
  /** Resolves once every batch is accepted; rejects when one was not within 150 s. */
  done: Promise<void>;
}

/**
 * Sends `emails` emails in batches of `batchSize`, two senders at a time, each batch with its own
 * Idempotency-Key and retried with that key until answered: a request cut off by a kill or an outage must
 * neither lose its emails nor send them twice. A batch refused for now goes to the back of the line, as a
 * client with other work would do: the key of a request an api kill cut off stays reserved until
 * abandoned, a minute later, and answers 409 until then. The senders keep at most `ahead` emails waiting
 * for the sink (`atSink()` of them there), so that sending lasts through every disruption, except while
 * `pressing`.
 */
export function sendInKeyedBatches(
  resend: Resend,
  { emails, batchSize, ahead, atSink }: { emails: number; batchSize: number; ahead: number; atSink: () => number },
): KeyedBatchSending {
  const line = Array.from({ length: emails / batchSize }, (_, b) => ({ first: b * batchSize, due: 0, giveUpAt: 0 }));
  let batchesLeft = line.length;
  const sending = { accepted: new Map<number, string>(), answers: [] as BatchAnswer[], pressing: false } as KeyedBatchSending;
  const sender = async () => {
    while (batchesLeft > 0) {
      const due = line.findIndex((b) => b.due <= Date.now());
      if (due === -1 || (!sending.pressing && sending.accepted.size - atSink() > ahead)) {
        await sleep(20);
        continue;
      }
      const [batch] = line.splice(due, 1);
      const { first } = batch!;
      batch!.giveUpAt ||= Date.now() + 150_000;
      const items = Array.from({ length: batchSize }, (_, i) => ({
        from: "Restarts <restarts@restarts.test>",
        to: [`r${first + i}@example.test`],
        subject: `restart ${first + i}`,
        text: `message ${first + i}`,
      }));
      const { data, error } = await resend.batch.send(items, { idempotencyKey: `restart-batch-${first}` });
      // An error answered over HTTP is in the error shape; the SDK reports no answer at all (the api down) with a null statusCode.
      const status = error ? ((error as { statusCode: number | null }).statusCode ?? null) : 200;
      const shaped = !error || status === null || (typeof error.message === "string" && typeof error.name === "string");
      sending.answers.push({ at: Date.now(), status, name: error?.name ?? "ok", shaped });
      if (data) {
        data.data.forEach((email, i) => sending.accepted.set(first + i, email.id));
        batchesLeft--;
        continue;
      }
      if (Date.now() > batch!.giveUpAt) throw new Error(`batch ${first} was not accepted within 150 s: last ${JSON.stringify(error)}`);
      line.push({ ...batch!, due: Date.now() + 200 });
      await sleep(200);
    }
  };
  sending.done = Promise.all([sender(), sender()]).then(() => undefined);
  return sending;
}
