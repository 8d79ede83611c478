import { findSegment } from "@tidings/audience";
import { createOneRunPerKey, formatTimestamp, TidingsError, type Logger, type Clock, type Counter } from "@tidings/core";
import {
  bareAddresses,
  broadcastDecider,
  broadcastStream,
  contactErasureStream,
  fold,
  type BroadcastEvent,
  type BroadcastRecord,
  type PlannedRecipient,
} from "@tidings/domain";
import type { EventStore, Position } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import type { Bus, Consumer } from "@tidings/bus";
import { queueEmail } from "@tidings/sending";
import { broadcastFanOutDurable, bulkLane } from "../durables.js";
import { consumeLongWork } from "../heldMessages.js";
import { holdStream, type HeldStream } from "../heldStream.js";
import type { ReadModelsAt } from "../readModelsAt.js";
import type { SuppressedRecipients } from "@tidings/sending";
import { contactsById, eligibleMembers, propertyFallbacks } from "./audienceSnapshot.js";
import { recipientEmail, textTemplateOf, type UnsubscribeLinks } from "./broadcastEmail.js";
import { InFlightWindow, settledEmails, teamBroadcastRate, type TeamRates } from "./pacing.js";
import { reactingTo, sagaMetadata } from "../sagaMetadata.js";

export interface BroadcastFanOutDeps {
  store: EventStore;
  clock: Clock;
  database: Database;
  logger: Logger;
  links: UnsubscribeLinks;
  suppressed: SuppressedRecipients;
  rates: TeamRates;
  /** Recipients per planned batch: a batch is the unit of progress a restart resumes from. */
  batchSize: number;
  /**
   * Emails of one broadcast handed to delivery without an outcome yet, at most (BROADCAST_EMAILS_IN_FLIGHT); fewer
   * while delivery is slower.
   */
  emailsInFlight: number;
  /** A team's emails per second unless an operator set its own (BROADCAST_EMAILS_PER_SECOND). */
  defaultRate: number;
  /** Email appends of a batch under way at once: they share the event store's round trips. */
  appendsInFlight: number;
  /** Waits for the audience read models to hold everything written before the broadcast was queued. */
  readModelsAt: ReadModelsAt;
  /** Counts recipients planned and emails queued, as their batches are recorded (default: nowhere). */
  progress?: Counter<"stage">;
}

/** The read models the snapshot reads: members, their choices and the suppression list. */
const snapshotReadModels = ["audience", "suppressions"];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Once `stopping` is aborted no item is started, and the call throws its reason when those under way end. */
async function forEachLimited<T>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<void>,
  stopping: AbortSignal | undefined,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length && !stopping?.aborted) await work(items[next++]!);
    }),
  );
  stopping?.throwIfAborted();
}

/** Canceled or failed since this run read the stream: the last event says so, and nothing more is queued. */
async function stopped(store: EventStore, broadcastId: string): Promise<boolean> {
  const [last] = await store.readStream(broadcastStream(broadcastId), { direction: "backwards", maxCount: 1 });
  return last?.type === "BroadcastCanceled" || last?.type === "BroadcastFailed";
}

/**
 * The snapshot: eligible members in contact id order, one planned batch per page. A run resumed mid-way
 * goes on after the last contact planned, with the same `asOf`, so nobody is planned twice.
 */
async function planSnapshot(
  deps: BroadcastFanOutDeps,
  broadcast: BroadcastRecord,
  queued: Position,
  planned: PlannedRecipient[][],
  held: HeldStream<Parameters<typeof broadcastDecider.decide>[0]>,
  stopping: AbortSignal | undefined,
): Promise<boolean> {
  const { teamId, content } = broadcast;
  const now = () => formatTimestamp(deps.clock.now());
  try {
    await findSegment(deps.store, teamId, content.segmentId!);
  } catch (error) {
    if (!(error instanceof TidingsError && error.code === "not_found")) throw error;
    await held.record({ type: "FailBroadcast", reason: "The broadcast's segment was deleted.", now: now() });
    return false;
  }
  // A contact who unsubscribed, or joined the segment, just before the broadcast was queued counts as such.
  await deps.readModelsAt(snapshotReadModels, queued);
  const query = { teamId, segmentId: content.segmentId!, topicId: content.topicId, asOf: broadcast.queuedAt! };
  let after = planned.at(-1)?.at(-1)?.contactId ?? null;
  for (;;) {
    stopping?.throwIfAborted();
    if (await stopped(deps.store, broadcast.broadcastId)) return false;
    const page = await eligibleMembers(deps.database, query, after, deps.batchSize);
    if (page.length === 0) break;
    after = page.at(-1)!.contactId;
    const recipients = await notSuppressed(deps, teamId, page);
    if (recipients.length === 0) continue;
    if (await held.record({ type: "PlanBroadcastBatch", batch: planned.length, recipients }))
      deps.progress?.inc({ stage: "planned" }, recipients.length);
    planned.push(recipients);
  }
  await held.record({ type: "StartBroadcastSending", now: now() });
  return true;
}

/**
 * What a run needs of the broadcast's stream. The stored events themselves are not kept: each holds its
 * batch's recipients twice (sealed, and opened on first read), the whole audience for a whole fan-out.
 */
async function readBroadcast(store: EventStore, broadcastId: string) {
  const recorded = await store.readStream(broadcastStream(broadcastId));
  const events = recorded.map((e) => ({ type: e.type, data: e.data }) as BroadcastEvent);
  const queued = recorded.findLast((e) => e.type === "BroadcastQueued");
  return {
    state: fold(broadcastDecider, events),
    revision: recorded.length === 0 ? ("no_stream" as const) : recorded[recorded.length - 1]!.revision,
    planned: events.flatMap((e) => (e.type === "BroadcastBatchPlanned" ? [e.data.recipients] : [])),
    // Only what the run reads of it: an event read with the plan's holds the keys of every recipient until opened.
    queued: queued && { id: queued.id, metadata: queued.metadata, position: queued.position },
    planEvents: recorded.filter((e) => e.type === "BroadcastBatchPlanned").map((e) => ({ id: e.id })),
  };
}

/**
 * Runs a broadcast's fan-out from where its stream says it is: plans the snapshot if it is not complete,
 * then queues each batch's emails and records the batch. Safe to run again at any point (a redelivery,
 * another sagas process, a restart after SIGKILL): a planned batch is never planned again, an email
 * already queued is found by its id and not queued again, and a recorded batch is skipped. Once
 * `stopping` is aborted it queues no more emails and throws its reason; the batch it was in is recorded
 * by the run that finishes it.
 */
export async function runBroadcastFanOut(deps: BroadcastFanOutDeps, broadcastId: string, stopping?: AbortSignal): Promise<void> {
  const stream = broadcastStream(broadcastId);
  const { state, revision, planned, queued, planEvents } = await readBroadcast(deps.store, broadcastId);
  // A broadcast not queued or sending has nothing to run (nor has an id whose stream holds no BroadcastQueued).
  if (!queued || (state.status !== "queued" && state.status !== "sending")) return;
  // The run continues the chain of the request that queued the broadcast (or of the timer that did): each
  // batch's emails are caused by the batch's plan, the broadcast's own events by its BroadcastQueued.
  const metadataFor = (cause: { id: string }) => () =>
    sagaMetadata(deps.clock, "broadcast-fan-out", { teamId: state.teamId, ...reactingTo(queued), causationId: cause.id });
  const metadata = metadataFor(queued);
  const held = await holdStream(deps.store, stream, broadcastDecider, metadata, { state, revision });
  if (state.status === "queued") {
    // Sending goes by the plan as the stream holds it, not as this run built it: another run of the same
    // broadcast (a redelivery while this one still ran) may have planned some batches instead.
    const complete = await planSnapshot(deps, state, queued.position, planned, held, stopping);
    // This run's copy of the plan goes before the sending run reads the stream's: this frame stays alive
    // until that run ends, and kept a second copy of every recipient all the while.
    planned.length = 0;
    if (complete) await runBroadcastFanOut(deps, broadcastId, stopping);
    return;
  }

  const { teamId } = state;
  const fallbacks = await propertyFallbacks(deps.database, teamId);
  const textTemplate = textTemplateOf(state.content.html);
  let handed = planned.slice(0, state.queuedBatches).reduce((n, batch) => n + batch.length, 0);
  const window = new InFlightWindow(deps.emailsInFlight);
  // Recipients erased before their email was queued get none, and count as settled for the window. A rerun
  // does not know those an earlier run skipped, and starts with a window smaller by that many.
  let skipped = 0;
  // The window keeps a big broadcast from filling the delivery queue: an email sent meanwhile (a
  // transactional one) finds about a second's worth of the broadcast's emails ahead of it.
  // Stopping is looked for here too: the delivery saga stops with this one, and the window would stay full.
  const roomInWindow = async () => {
    for (;;) {
      stopping?.throwIfAborted();
      const settled = await settledEmails(deps.database, broadcastId);
      const room = window.limit(settled + skipped) - (handed - settled - skipped);
      if (room > 0) return room;
      await sleep(50);
    }
  };
  for (let batch = state.queuedBatches; batch < planned.length; batch++) {
    const recipients = planned[batch]!;
    // The emails go in the bulk lane: a delivery consumer of their own, so none queues ahead of a transactional one.
    const batchMetadata = () => ({ ...metadataFor(planEvents[batch]!)(), lane: bulkLane });
    const skippedBefore = skipped;
    const suppressed = new Map(
      (
        await deps.suppressed(
          teamId,
          recipients.map((r) => r.email),
        )
      ).map((found) => [found.email.toLowerCase(), found]),
    );
    // In chunks that fit the window and a second of the team's rate, each checked for a cancel.
    for (let start = 0; start < recipients.length;) {
      const room = await roomInWindow();
      const rate = (await teamBroadcastRate(deps.database, teamId)) ?? deps.defaultRate;
      const chunk = recipients.slice(start, start + Math.min(rate, deps.appendsInFlight * 4, room));
      await deps.rates.take(teamId, chunk.length, rate);
      if (await stopped(deps.store, broadcastId)) return;
      // Looked up just before the chunk is queued, after the pacing's wait, so an erasure meanwhile is seen.
      const contacts = await contactsById(
        deps.database,
        chunk.map((r) => r.contactId),
      );
      const erased = await erasedAmong(
        deps.store,
        chunk.map((r) => r.contactId).filter((id) => !contacts.has(id)),
      );
      const now = deps.clock.now();
      await forEachLimited(
        chunk,
        deps.appendsInFlight,
        async (recipient) => {
          // Erased since the plan: mailing the address the plan holds would bring back what the erasure removed.
          if (erased.has(recipient.contactId)) {
            skipped++;
            return;
          }
          const content = recipientEmail({
            broadcast: state,
            recipient,
            contact: contacts.get(recipient.contactId),
            propertyFallbacks: fallbacks,
            links: deps.links,
            textTemplate,
            now,
          });
          const onList = suppressed.get(recipient.email.toLowerCase());
          // The email's id derives from the broadcast and the contact: a rerun of the batch queues nothing twice.
          await queueEmail(
            deps.store,
            { content, scheduledAt: null, suppressed: onList ? [onList] : [], now: content.createdAt, metadata: batchMetadata() },
            "derived",
          );
        },
        stopping,
      );
      start += chunk.length;
      handed += chunk.length;
    }
    const emails = recipients.length - (skipped - skippedBefore);
    // A queued batch is not read again by this run: its recipients go, so the plan held shrinks as it sends.
    planned[batch] = [];
    if (await held.record({ type: "RecordBroadcastBatchQueued", batch, emails, now: formatTimestamp(deps.clock.now()) }))
      deps.progress?.inc({ stage: "queued" }, emails);
  }
  await held.record({ type: "CompleteBroadcast", now: formatTimestamp(deps.clock.now()) });
  deps.logger.info({ broadcastId, recipients: handed - skipped, erased: skipped }, "broadcast handed to delivery");
}

export async function startBroadcastFanOutSaga(options: { bus: Bus; deps: BroadcastFanOutDeps }): Promise<Consumer> {
  const { bus, deps } = options;
  // A message redelivered while this process still runs its fan-out (its heartbeat late, on a starved
  // machine) waits for that run: a second one beside it conflicted at every batch it recorded.
  const running = createOneRunPerKey();
  return consumeLongWork(bus, { durable: broadcastFanOutDurable, category: "broadcast", type: "BroadcastQueued" }, (event, stopping) =>
    running.run(event.data.broadcastId, () => {
      // A redelivery that waited for a run the stop cut short reads nothing more.
      stopping.throwIfAborted();
      return runBroadcastFanOut(deps, event.data.broadcastId, stopping);
    }),
  );
}

/**
 * The members the suppression list does not hold. The snapshot's query leaves out those listed by address;
 * an address erased while suppressed is listed by keyed hash, which only the lookup computes
 * (docs/privacy.md), so a contact made again with it is left out here.
 */
async function notSuppressed(deps: BroadcastFanOutDeps, teamId: string, page: PlannedRecipient[]): Promise<PlannedRecipient[]> {
  const found = await deps.suppressed(
    teamId,
    page.map((r) => r.email),
  );
  if (found.length === 0) return page;
  const listed = new Set(found.map((f) => f.email));
  return page.filter((r) => !listed.has(bareAddresses([r.email])[0]!));
}

/** Which of these contacts were erased: the contact's row is gone from the read model, and its erasure is in the store. */
async function erasedAmong(store: EventStore, contactIds: string[]): Promise<Set<string>> {
  const found = await Promise.all(
    contactIds.map(async (id) => ((await store.readStream(contactErasureStream(id), { maxCount: 1 })).length > 0 ? id : undefined)),
  );
  return new Set(found.filter((id) => id !== undefined));
}
