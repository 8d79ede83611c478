import type { Bus, DeadLetter } from "./port.js";

/** The header a redelivered message carries: the id of the message whose dead letter it came from. */
export const redeliveredFromHeader = "tidings-redelivered-from";

/**
 * A letter's redelivery id. A new one, since the bus drops a repeat of an id it still remembers; the same one
 * for the same letter, so a retry that is repeated after a crash between its publish and its removal is
 * dropped as the repeat it is.
 */
export const redeliveryMsgId = (durable: string, letter: Pick<DeadLetter, "id" | "msgId">) =>
  `${letter.msgId}~retry~${durable}~${letter.id}`;

/**
 * Publishes a dead letter's message again on its original subject, body and headers, then removes the letter
 * (docs/operations.md, "Dead letters"). Every durable on the subject gets it again, not only the one that
 * gave up: that is a redelivery like any other, which each saga absorbs by keying its effects on the event
 * the message carries, so what was done already is not done twice.
 */
export async function redeliverDeadLetter(
  bus: Pick<Bus, "publish" | "removeDeadLetter">,
  durable: string,
  letter: DeadLetter,
): Promise<void> {
  await bus.publish(letter.subject, letter.data, {
    msgId: redeliveryMsgId(durable, letter),
    headers: { ...letter.headers, [redeliveredFromHeader]: letter.msgId },
  });
  await bus.removeDeadLetter(durable, letter.id);
}
