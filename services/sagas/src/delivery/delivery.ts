import { bulkLane, deliveryBulkDurable, deliveryDurable } from "../durables.js";
import { heldMessages } from "../heldMessages.js";
import { continuingTrace, createOneRunPerKey, formatTimestamp, type Clock, type Logger, type Slots } from "@tidings/core";
import { hasFinalOutcome, parseMailbox, pendingRecipients, type EmailContent, type EmailCommand, type EmailState } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { BlobNotFoundError } from "@tidings/blobs";
import { consumeEvents, type Bus, type BusMessage, type Consumer } from "@tidings/bus";
import { instantOf, loadEmail, type LoadedEmail } from "./emailStream.js";
import { recordOutcome } from "./recordOutcome.js";
import { nextAttemptAt } from "./retryPlan.js";
import type { SuppressedRecipients } from "@tidings/sending";
import type { Timers } from "../timers/index.js";
import type { MailTransport, TlsPolicy } from "@tidings/mail";
import { recipientResults } from "./recipientResults.js";
import { sagaMetadata } from "../sagaMetadata.js";

export interface DeliveryDeps {
  store: EventStore;
  /** The time outcomes are recorded at, and an email's age is measured by. */
  clock: Clock;
  transport: MailTransport;
  /**
   * MAIL_CONCURRENCY: held from handing an email to the transport until its outcome is recorded, so no
   * more emails than that are ever between the server's 250 and their record, however many are read and
   * composed ahead.
   */
  sending: Slots;
  /** Builds the raw RFC 5322 message of an email (Message-ID from its id, attachments from the blob store). */
  compose(content: EmailContent): Promise<Buffer>;
  timers: Timers;
  logger: Logger;
  suppressed: SuppressedRecipients;
  /**
   * What the sending domain asks of the envelope: `tls` (`enforced` fails an email whose receiving server
   * offers no TLS), and the envelope sender, a bounce address on its return path (`bounceAddresses`);
   * null for an email from no domain of the team, whose envelope sender is its From address.
   */
  envelopePolicy(content: EmailContent): Promise<{ tls: TlsPolicy; sender: string | null }>;
  /** Waits after successive 4xx deferrals (DELIVERY_RETRY_BACKOFF_MS). */
  retryBackoffMs: number[];
  /** Whether a broadcast was canceled: its emails not yet attempted are then canceled, not sent. */
  broadcastCanceled?: (broadcastId: string) => Promise<boolean>;
}

export const retryTimerKey = (emailId: string) => `email-retry:${emailId}`;
export type RetryTimerPayload = { kind: "retry-delivery"; emailId: string };

/** The deliveries this process has under way, by email id. */
const underWay = createOneRunPerKey();

/** The emails this process is delivering now: what a stop cut short by its deadline leaves to be sent again. */
export const deliveriesUnderWay = (): string[] => underWay.underWay();

/**
 * Sends one email if it still needs sending, and records what the transport said. Safe to call again for
 * the same email (a redelivered message, a retry timer firing twice): an email that already has its final
 * outcome is never handed to the transport again. A call for an email this process is already delivering
 * (a message redelivered when its ack wait ran out on a starved machine, a retry timer beside it) waits
 * for that delivery and then finds its outcome: two sends of one email side by side would both reach the
 * server, a duplicate no crash caused.
 *
 * Once `stopping` is aborted, an email not yet handed to the transport is not sent (the call throws the
 * signal's reason, having recorded nothing); one already with the relay is waited for and recorded, as
 * cutting it short would leave an email the relay may have accepted with no outcome. `stopping` also ends a
 * wait for the store to take that outcome (see recordOutcome): past it, the email is sent again with its
 * Message-ID, the window a crash leaves too.
 */
export async function deliverEmail(
  deps: DeliveryDeps,
  emailId: string,
  stopping?: AbortSignal,
  /**
   * Whether what asked for the email still holds it alone, looked at just before the send: the bus
   * message's `stillHeld`, or a retry timer's lease (`DueTimer.stillHeld`).
   */
  stillHeld?: () => boolean,
): Promise<void> {
  return underWay.run(emailId, async () => {
    stopping?.throwIfAborted();
    await attemptDelivery(deps, emailId, stopping, stillHeld);
  });
}

async function attemptDelivery(
  deps: DeliveryDeps,
  emailId: string,
  stopping: AbortSignal | undefined,
  stillHeld: (() => boolean) | undefined,
): Promise<void> {
  const loaded = await loadEmail(deps.store, emailId);
  // A retry's timer carries no trace: the attempt continues the one its stream's last event was appended in.
  return continuingTrace(loaded.traceparent, () => attemptLoaded(deps, emailId, loaded, stopping, stillHeld));
}

async function attemptLoaded(
  deps: DeliveryDeps,
  emailId: string,
  loaded: LoadedEmail,
  stopping: AbortSignal | undefined,
  stillHeld: (() => boolean) | undefined,
): Promise<void> {
  const { store, transport, logger } = deps;
  const { state, content, firstDelayedAt } = loaded;
  if (state.status === "none" || content === null || loaded.chain === null) return;
  const { chain } = loaded;
  if (hasFinalOutcome(state) || state.status === "scheduled") return;
  const record = (command: EmailCommand) =>
    recordOutcome(
      store,
      { ...loaded, emailId },
      command,
      sagaMetadata(deps.clock, "delivery", { teamId: state.teamId, ...chain }),
      stopping,
    );
  const now = () => formatTimestamp(deps.clock.now());
  if (content.broadcastId && state.status === "queued" && (await deps.broadcastCanceled?.(content.broadcastId))) {
    await record({ type: "RecordEmailCanceled", now: now() });
    return;
  }
  // A retry goes only to the recipients without an outcome; the message keeps its headers (To, Cc,
  // Message-ID), so those delivered before never get a second copy.
  const policy = await deps.envelopePolicy(content);
  const envelope = { from: policy.sender ?? addressOf(content.from), to: pendingRecipients(state) };
  const suppressed = needsSuppressionCheck(state, content, deps.clock.now()) ? await deps.suppressed(state.teamId, envelope.to) : [];
  if (suppressed.length > 0) {
    await record({ type: "RecordEmailSuppressed", suppressed, now: now() });
    return;
  }
  let raw: Buffer;
  try {
    raw = await deps.compose(content);
  } catch (error) {
    // Missing attachment bytes never come back: fail the email now rather than retry it into a dead letter.
    if (!(error instanceof BlobNotFoundError)) throw error;
    await record({
      type: "RecordEmailFailed",
      reason: `attachment content missing (${error.sha256})`,
      response: null,
      code: null,
      now: now(),
    });
    return;
  }
  // A transactional email takes the next free connection ahead of a broadcast's waiting ones: someone waits for it.
  await deps.sending.hold(
    async () => {
      stopping?.throwIfAborted();
      // This process stood still (or, for a retry, waited) long enough for the bus to hand the message, or the
      // poller the timer, to another process, which may be sending the email from the same state read: both
      // would reach the relay. Nothing is sent or recorded here; the message or timer goes back, and its next
      // delivery finds the email as the other one left it.
      if (stillHeld && !stillHeld()) throw new HoldLapsedError(emailId);
      const outcome = await transport.send({ emailId, envelope, raw, tls: policy.tls });
      // The window between the server's 250 and this record is the one a crash turns into a duplicate (same
      // Message-ID); nothing may be awaited before the outcome is recorded.
      const sentAt = deps.clock.now();
      const results = recipientResults(outcome, envelope.to);
      const attempt = state.delayedAttempts + 1;
      let retryAt: Date | null = null;
      if (results.some((r) => r.kind === "deferred")) {
        retryAt = nextAttemptAt({ attempt, firstAttemptAt: firstDelayedAt ?? sentAt, now: sentAt, backoffMs: deps.retryBackoffMs });
        // The timer goes in before the deferral is recorded: a crash between the two leaves a timer that
        // retries, never a delayed email nobody will retry. Null: past the 24 h window, the deferred fail.
        const payload: RetryTimerPayload = { kind: "retry-delivery", emailId };
        if (retryAt !== null) await deps.timers.schedule(retryTimerKey(emailId), retryAt, payload);
      }
      await record({
        type: "RecordDeliveryAttempt",
        results,
        attempt,
        nextAttemptAt: retryAt && formatTimestamp(retryAt),
        now: formatTimestamp(sentAt),
      });
      logger.debug({ emailId, outcome: outcome.kind, code: outcome.code }, "email delivery attempted");
    },
    stopping,
    !content.broadcastId,
  );
}

/** An email not sent because its bus message or retry timer may have gone to another process meanwhile. */
export class HoldLapsedError extends Error {
  constructor(emailId: string) {
    super(
      `email ${emailId} not sent: its bus message or retry timer may have passed to another process while this one stood still or waited`,
    );
  }
}

/** How long after acceptance the send path's own suppression check is taken as still good. */
const acceptanceCheckValidMs = 60_000;

/**
 * The send path checked the list when it accepted the email; a moment later the answer is the same but
 * for a bounce in that moment, a race the send path already accepts. A retry, or an email accepted long
 * ago (scheduled, or waiting in a backlog), is checked again, as a hard bounce may have come since.
 */
function needsSuppressionCheck(state: EmailState, content: EmailContent, now: Date): boolean {
  if (state.status !== "none" && state.delayedAttempts > 0) return true;
  return now.getTime() - instantOf(content.createdAt).getTime() > acceptanceCheckValidMs;
}

/** The envelope wants `a@b.c`, not `Name <a@b.c>`; the send path already checked every mailbox. */
const addressOf = (mailbox: string) => parseMailbox(mailbox)?.address ?? mailbox;

export interface DeliverySagaOptions {
  bus: Bus;
  deps: DeliveryDeps;
  /** Messages handled at once: more than `deps.sending`, so that reading and composing overlap the sends. */
  concurrency: number;
}

/**
 * The delivery saga (docs/architecture.md §5): two durable consumers of queued emails, one for the emails
 * in no lane (transactional ones) and one for those in the bulk lane (a broadcast's, which the fan-out
 * puts there). Each has its own place in the bus, so a transactional email never waits behind a
 * broadcast's backlog, and it takes the next free send slot ahead of them; both share the slots, so
 * MAIL_CONCURRENCY still bounds the sends.
 */
export async function startDeliverySaga({ bus, deps, concurrency }: DeliverySagaOptions): Promise<Consumer[]> {
  const deliver = async (emailId: string, message: BusMessage) => {
    try {
      await deliverEmail(deps, emailId, message.stopping, message.stillHeld);
    } catch (error) {
      if (error instanceof HoldLapsedError) deps.logger.warn({ emailId }, error.message);
      throw error;
    }
  };
  const consumer = (durable: string, lane: string | undefined) =>
    consumeEvents(
      bus,
      { durable, category: "email", type: "EmailQueued", ...(lane === undefined ? {} : { lane }), ...heldMessages, concurrency },
      (event, message) => deliver(event.data.emailId, message),
    );
  return [await consumer(deliveryDurable, undefined), await consumer(deliveryBulkDurable, bulkLane)];
}
