import { findSegment } from "@tidings/audience";
import { createOneRunPerKey, formatTimestamp, TidingsError, type Logger, type Clock, type Counter } from "@tidings/core";
import {
  bareAddresses,
  broadcastDecider,
  broadcastStream,
  contactErasureStream,
  fold,
  plannedCount,
  type BroadcastEvent,
  type BroadcastRecord,
  type PlannedRecipient,
} from "@tidings/domain";
import type { EventStore, Position } from "@tidings/eventstore";
import { isErasedText } from "@tidings/privacy";
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

/**
 * The broadcast's stream read for its events' types and counts: a planned batch's recipients are not opened,
 * nor their keys looked up (docs/privacy.md, "Reading only what is read").
 */
const planUnopened = { unopenedTypes: new Set(["BroadcastBatchPlanned"]) };

/** Canceled or failed since this run read the stream: the last event says so, and nothing more is queued. */
async function stopped(store: EventStore, broadcastId: string): Promise<boolean> {
  // While planning, the last event is the batch just planned: read opened, it looked up that batch's keys again.
  const [last] = await store.readStream(broadcastStream(broadcastId), { direction: "backwards", maxCount: 1, ...planUnopened });
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
  plan: PlannedBatch[],
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
  const last = plan.at(-1);
  let after = last ? (await plannedRecipients(deps.store, broadcast.broadcastId, last)).at(-1)!.contactId : null;
  let batch = plan.length;
  for (;;) {
    stopping?.throwIfAborted();
    if (await stopped(deps.store, broadcast.broadcastId)) return false;
    const page = await eligibleMembers(deps.database, query, after, deps.batchSize);
    if (page.length === 0) break;
    after = page.at(-1)!.contactId;
    const recipients = await notSuppressed(deps, teamId, page);
    if (recipients.length === 0) continue;
    if (await held.record({ type: "PlanBroadcastBatch", batch, recipients })) deps.progress?.inc({ stage: "planned" }, recipients.length);
    batch++;
  }
  await held.record({ type: "StartBroadcastSending", now: now() });
  return true;
}

/** A planned batch as a run keeps it: where its event is, not its recipients. */
interface PlannedBatch {
  id: string;
  revision: bigint;
  count: number;
}

/**
 * A batch's recipients, read again and opened when the batch is queued: only its own recipients' keys are
 * looked up, and the run lets go of them once the batch is queued.
 */
async function plannedRecipients(store: EventStore, broadcastId: string, batch: PlannedBatch): Promise<PlannedRecipient[]> {
  const [planned] = await store.readStream(broadcastStream(broadcastId), { fromRevision: batch.revision, maxCount: 1 });
  return (planned!.data as Extract<BroadcastEvent, { type: "BroadcastBatchPlanned" }>["data"]).recipients;
}

/**
 * What a run needs of the broadcast's stream, the plan unopened. Read opened, the stream looked up every
 * recipient's key in one query and the fold opened every address, held until its batch was queued.
 */
async function readBroadcast(store: EventStore, broadcastId: string) {
  const stream = broadcastStream(broadcastId);
  let recorded = await store.readStream(stream, planUnopened);
  // A batch planned before batches recorded their count is counted by its recipients, so the plan is read opened.
  if (recorded.some((e) => e.type === "BroadcastBatchPlanned" && (e.data as { count?: number }).count === undefined))
    recorded = await store.readStream(stream);
  const events = recorded.map((e) => ({ type: e.type, data: e.data }) as BroadcastEvent);
  const queued = recorded.findLast((e) => e.type === "BroadcastQueued");
  return {
    state: fold(broadcastDecider, events),
    revision: recorded.length === 0 ? ("no_stream" as const) : recorded[recorded.length - 1]!.revision,
    // Only what the run reads of it: an event read with the plan's holds the keys of every recipient until opened.
    queued: queued && { id: queued.id, metadata: queued.metadata, position: queued.position },
    plan: events.flatMap((e, i): PlannedBatch[] =>
      e.type === "BroadcastBatchPlanned" ? [{ id: recorded[i]!.id, revision: recorded[i]!.revision, count: plannedCount(e.data) }] : [],
    ),
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
  const { state, revision, plan, queued } = await readBroadcast(deps.store, broadcastId);
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
    const complete = await planSnapshot(deps, state, queued.position, plan, held, stopping);
    if (complete) await runBroadcastFanOut(deps, broadcastId, stopping);
    return;
  }

  const { teamId } = state;
  const fallbacks = await propertyFallbacks(deps.database, teamId);
  const textTemplate = textTemplateOf(state.content.html);
  let handed = plan.slice(0, state.queuedBatches).reduce((n, batch) => n + batch.count, 0);
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
  for (let batch = state.queuedBatches; batch < plan.length; batch++) {
    const recipients = await plannedRecipients(deps.store, broadcastId, plan[batch]!);
    // The emails go in the bulk lane: a delivery consumer of their own, so none queues ahead of a transactional one.
    const batchMetadata = () => ({ ...metadataFor(plan[batch]!)(), lane: bulkLane });
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
          // Its key goes first, so the address may open as erased while the contact is still in the read model.
          if (erased.has(recipient.contactId) || isErasedText(recipient.email)) {
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
