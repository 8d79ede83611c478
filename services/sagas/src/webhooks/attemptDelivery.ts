import { continuingTrace, deterministicId, formatTimestamp, parseTimestamp, type Logger, type Sealer, type Clock } from "@tidings/core";
import {
  fold,
  isDeliveryDone,
  isDomainError,
  webhookDeliveryDecider,
  webhookDeliveryStream,
  webhookStream,
  type LiveWebhookDelivery,
  type SigningSecret,
  type WebhookDeliveryCommand,
  type WebhookDeliveryEvent,
} from "@tidings/domain";
import { WrongExpectedRevisionError, type EventStore } from "@tidings/eventstore";
import { DomainRejection, handleCommand } from "@tidings/commands";
import type { Timers } from "../timers/index.js";
import { postWebhook, type PostRequest, type PostOutcome } from "./postWebhook.js";
import { webhookHeaders } from "./signature.js";
import { canonicalJson } from "./canonicalJson.js";
import type { AttemptLeases } from "./attemptLeases.js";
import { targetOf, type WebhookTarget, type WebhookTargets } from "./webhookTargets.js";
import { untilRecorded } from "../untilRecorded.js";
import { continuing, sagaMetadata, type EventChain } from "../sagaMetadata.js";

export interface AttemptDeps {
  store: EventStore;
  /** The time attempts are signed, recorded and scheduled at. */
  clock: Clock;
  timers: Timers;
  logger: Logger;
  /** Opens the sealed signing secrets (keyed by TIDINGS_SECRET, or embedded mode's). */
  sealer: Sealer;
  allowPrivate: boolean;
  scheduleMs: number[];
  /** Claims an attempt for this process, so no other posts the same delivery meanwhile. */
  leases: AttemptLeases;
  /**
   * How long what the fan-out knows of a delivery it just made is used without a claim or a read: less
   * than the sweep's `staleMs`, so no other process can have been handed the delivery in that time.
   */
  knownForMs: number;
  /** How long the webhook it was made for is taken as it was then; after, `targets` reads it again. */
  targetForMs: number;
  targets: WebhookTargets;
  post?: (request: PostRequest) => Promise<PostOutcome>;
  /** Aborted when the saga stops: an outcome the store refuses is no longer waited for. */
  stopping?: AbortSignal;
}

export const deliveryTimerKey = (deliveryId: string) => `webhook-delivery:${deliveryId}`;
export type DeliveryTimerPayload = { kind: "webhook-delivery"; deliveryId: string; webhookId: string };
export const deliveryTimerPayload = (deliveryId: string, webhookId: string): DeliveryTimerPayload => ({
  kind: "webhook-delivery",
  deliveryId,
  webhookId,
});

/** The id receivers see (`svix-id`/`webhook-id`): the delivery's, so every attempt and replay carries the same one. */
export const webhookMessageId = (deliveryId: string) => `msg_${deliveryId}`;

/**
 * A delivery as its creator knows it, just made: its first attempt needs no claim and no read of its
 * stream. Only the fan-out that appended the delivery passes it, with the webhook as its lookup found
 * it. Past `targetForMs` (a delivery waiting behind a busy endpoint) the webhook is read again, so one
 * disabled meanwhile gets nothing; past `knownForMs` the delivery is claimed and read again too.
 */
export interface KnownDelivery {
  /** When the webhook was looked up (Date.now()). */
  at: number;
  state: LiveWebhookDelivery;
  revision: bigint;
  target: WebhookTarget;
  /** What the attempt's record continues: the chain of the event the delivery was made for, caused by the stream's last event. */
  chain: EventChain;
  /** The trace the delivery was made in, which its attempts continue (docs/operations.md, "Traces"). */
  traceparent?: string;
}

/**
 * How one attempt is run. `known`: the delivery as its creator knows it. `answered`: called once the
 * endpoint has answered, before the outcome is recorded (it frees the endpoint's slot). `stopping`:
 * aborted, a request still waiting for its answer is cut, and nothing is recorded of it.
 */
export interface AttemptOptions {
  known?: KnownDelivery | undefined;
  answered?: () => void;
  stopping?: AbortSignal;
}

/** What an attempt works from; a null target is a webhook no longer enabled. */
type LoadedDelivery = Omit<KnownDelivery, "at" | "target"> & { target: WebhookTarget | null };

const instant = (text: string) => parseTimestamp(text) ?? new Date(text);

/** The secrets that sign at `now`: the current one, and one rotated out until its 24 h grace ends. */
export const secretsSigningAt = (secrets: SigningSecret[], now: number) =>
  secrets.filter((s) => s.validUntil === null || instant(s.validUntil).getTime() > now);

/**
 * Reads a delivery and its webhook from their streams, so a webhook disabled or deleted a moment ago is
 * seen; the webhook's stream is read alongside, by the id the caller gave, to save a round trip. Undefined
 * when there is nothing to send now (the timer is then set right).
 */
async function loadDelivery(deps: AttemptDeps, deliveryId: string, webhookId: string | undefined): Promise<LoadedDelivery | undefined> {
  const { store, timers } = deps;
  const key = deliveryTimerKey(deliveryId);
  const [recorded, webhookEvents] = await Promise.all([
    store.readStream(webhookDeliveryStream(deliveryId)),
    webhookId ? store.readStream(webhookStream(webhookId)) : null,
  ]);
  const state = fold(
    webhookDeliveryDecider,
    recorded.map((e) => ({ type: e.type, data: e.data }) as WebhookDeliveryEvent),
  );
  if (state.status === "none" || isDeliveryDone(state)) {
    await timers.cancel(key);
    return undefined;
  }
  // A timer moved early (a redelivered event re-arms it) waits for the attempt the schedule says.
  if (state.nextAttemptAt !== null && instant(state.nextAttemptAt).getTime() > deps.clock.now().getTime() + 50) {
    await timers.schedule(key, instant(state.nextAttemptAt), deliveryTimerPayload(deliveryId, state.webhookId));
    return undefined;
  }
  const events = webhookId === state.webhookId && webhookEvents ? webhookEvents : await store.readStream(webhookStream(state.webhookId));
  return {
    state,
    revision: recorded[recorded.length - 1]!.revision,
    target: targetOf(events),
    chain: continuing(recorded),
    traceparent: recorded[0]!.metadata.traceparent,
  };
}

/**
 * One attempt of one delivery, if it is due. Safe to run twice: the attempt number recorded is the one
 * after the last recorded, and a recorded one is not recorded again. A webhook no longer enabled gets
 * nothing more: its delivery is abandoned. Unless the fan-out just made it, the delivery is claimed
 * before it is read: a claim held elsewhere means another process is at it, and the read after the
 * claim sees whatever the previous holder recorded.
 */
export async function attemptDelivery(
  deps: AttemptDeps,
  deliveryId: string,
  webhookId?: string,
  options: AttemptOptions = {},
): Promise<void> {
  const { known } = options;
  const stillKnown = () => known !== undefined && Date.now() - known.at < deps.knownForMs;
  if (known && stillKnown()) {
    const target = Date.now() - known.at < deps.targetForMs ? known.target : await deps.targets.get(known.state.webhookId);
    return attemptLoaded(deps, deliveryId, { ...known, target }, stillKnown, options);
  }
  const lease = await deps.leases.claim(deliveryId);
  if (!lease) return;
  try {
    const loaded = await loadDelivery(deps, deliveryId, webhookId);
    if (loaded) await attemptLoaded(deps, deliveryId, loaded, lease.stillHeld, options);
  } finally {
    // Left in place, the lease would only run out: a retry another process takes up would wait for it.
    await deps.leases
      .release(deliveryId)
      .catch((error: unknown) => deps.logger.warn({ err: error, deliveryId }, "releasing a webhook attempt's lease failed"));
  }
}

/**
 * `stillHeld` says whether no other process can have been handed the delivery yet: the lease's, or, for a
 * delivery its creator knows, that `knownForMs` has not passed. It is looked at just before the POST.
 */
async function attemptLoaded(
  deps: AttemptDeps,
  deliveryId: string,
  loaded: LoadedDelivery,
  stillHeld: () => boolean,
  { answered = () => {}, stopping }: AttemptOptions,
): Promise<void> {
  const { store, timers } = deps;
  const { state, revision, target, chain } = loaded;
  const streamId = webhookDeliveryStream(deliveryId);
  const key = deliveryTimerKey(deliveryId);
  // Tried again while the store refuses it (untilRecorded): an attempt the endpoint took and nobody
  // recorded is posted again.
  const record = async (command: WebhookDeliveryCommand) => {
    const decided = webhookDeliveryDecider.decide(command, state);
    if (isDomainError(decided)) throw new DomainRejection(decided);
    if (decided.length === 0) return;
    const metadata = sagaMetadata(deps.clock, "webhooks", { teamId: state.teamId, ...chain });
    await untilRecorded(async () => {
      try {
        await store.append(
          streamId,
          decided.map((event, i) => ({
            id: deterministicId("webhook-delivery-outcome", deliveryId, String(revision), String(i)),
            type: event.type,
            data: event.data,
            metadata,
          })),
          revision,
        );
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        await handleCommand({ store, streamId, decider: webhookDeliveryDecider, command, metadata });
      }
    }, deps.stopping);
  };

  // A retry timer is pending only when the delivery waits for one; then a final outcome drops it.
  const retryPending = state.nextAttemptAt !== null;
  if (target === null) {
    await record({ type: "AbandonWebhookDelivery", reason: "webhook disabled or deleted", now: formatTimestamp(deps.clock.now()) });
    if (retryPending) await timers.cancel(key);
    return;
  }
  const now = deps.clock.now().getTime();
  const secrets = secretsSigningAt(target.secrets, now).map((s) => deps.sealer.openText(s.sealed));
  const body = canonicalJson(state.payload);
  const headers = webhookHeaders(secrets, webhookMessageId(deliveryId), Math.floor(now / 1000), body);
  // Stopped before an answer, the attempt is no failure of the endpoint: nothing is recorded, and a timer
  // due now hands the delivery to whichever process polls next. An endpoint that took the cut request
  // all the same can tell the next one by its webhook id, which is the same.
  const handBack = () => timers.schedule(key, deps.clock.now(), deliveryTimerPayload(deliveryId, state.webhookId));
  if (stopping?.aborted) return handBack();
  // Past that point another process may be posting it already; a timer due now hands the delivery to a
  // claim, which reads what the other recorded.
  if (!stillHeld()) {
    deps.logger.warn({ deliveryId }, "a webhook attempt's hold ran short before its POST; handed back to a timer, not posted");
    return handBack();
  }
  const outcome = await continuingTrace(loaded.traceparent, () =>
    (deps.post ?? postWebhook)({
      url: target.endpoint,
      headers,
      body,
      allowPrivate: deps.allowPrivate,
      ...(stopping ? { signal: stopping } : {}),
    }),
  );
  answered();
  if (outcome.statusCode === null && stopping?.aborted) return handBack();

  const attempt: WebhookDeliveryCommand = {
    type: "RecordWebhookAttempt",
    attempt: state.attempts + 1,
    ...outcome,
    scheduleMs: deps.scheduleMs,
    now: deps.clock.now(),
  };
  const decided = webhookDeliveryDecider.decide(attempt, state);
  const next = !isDomainError(decided) && decided[0]?.type === "WebhookDeliveryAttempted" ? decided[0].data.nextAttemptAt : null;
  // A retry's timer goes in before the failure is recorded: a crash between leaves a retry, never a
  // failed attempt nobody retries. A final outcome is recorded first, then a pending timer dropped.
  if (next !== null) await timers.schedule(key, new Date(next), deliveryTimerPayload(deliveryId, state.webhookId));
  await record(attempt);
  if (next === null && retryPending) await timers.cancel(key);
  deps.logger.debug({ deliveryId, statusCode: outcome.statusCode, succeeded: outcome.succeeded }, "webhook attempted");
}
