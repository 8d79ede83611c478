import { findSegment, findTopic } from "@tidings/audience";
import { DomainRejection, handleCommand } from "@tidings/commands";
import { formatTimestamp, isUuid, newId, TidingsError, type Clock, type Config } from "@tidings/core";
import {
  broadcastDecider,
  broadcastStream,
  checkFrom,
  checkRecipients,
  fold,
  isDomainError,
  parseScheduledAt,
  type BroadcastCommand,
  type BroadcastContent,
  type BroadcastEvent,
  type BroadcastRecord,
  type DomainError,
} from "@tidings/domain";
import { WrongExpectedRevisionError, type EventMetadata, type EventStore, type Position } from "@tidings/eventstore";
import type { RequestAuth } from "../plugins/auth.js";
import { sendingDomainFor } from "./prepareEmail.js";
import type { SendingDomainCache } from "../lookups/sendingDomainCache.js";
import type { SendingPauseCheck } from "../lookups/sendingPauses.js";

export type BroadcastDeps = {
  store: EventStore;
  clock: Clock;
  config: Pick<Config, "TIDINGS_ALLOW_UNVERIFIED_FROM">;
  domains: SendingDomainCache;
  paused: SendingPauseCheck;
};

export interface ChangedBroadcast {
  id: string;
  position?: Position;
}

const orThrow = (error: DomainError | undefined) => {
  if (error) throw new DomainRejection(error);
};

const invalidReference = (field: string, what: string) =>
  new TidingsError("validation_error", `The \`${field}\` field does not name ${what} of this team.`);

/** A reference the content makes must name a live resource of the team, else the field is wrong (422), not the path (404). */
async function checkReferences(deps: BroadcastDeps, teamId: string, changes: Partial<BroadcastContent>): Promise<void> {
  if (changes.from != null) orThrow(checkFrom(changes.from));
  if (changes.replyTo) orThrow(checkRecipients("reply_to", changes.replyTo));
  const missingIs = (field: string, what: string) => (error: unknown) => {
    if (error instanceof TidingsError && error.code === "not_found") throw invalidReference(field, what);
    throw error;
  };
  if (changes.segmentId != null) await findSegment(deps.store, teamId, changes.segmentId).catch(missingIs("segment_id", "a segment"));
  if (changes.topicId != null) await findTopic(deps.store, teamId, changes.topicId).catch(missingIs("topic_id", "a topic"));
}

async function loadBroadcast(
  store: EventStore,
  teamId: string,
  broadcastId: string,
): Promise<BroadcastRecord & { revision: bigint | "no_stream" }> {
  const recorded = isUuid(broadcastId) ? await store.readStream(broadcastStream(broadcastId)) : [];
  const state = fold(
    broadcastDecider,
    recorded.map((e) => ({ type: e.type, data: e.data }) as BroadcastEvent),
  );
  if (state.status === "none" || state.status === "deleted" || state.teamId !== teamId)
    throw new TidingsError("not_found", "Broadcast not found");
  return { ...state, revision: recorded.at(-1)!.revision };
}

/** `scheduled_at` as the wire gives it (ISO 8601 or `in 1 hour`), in the wire's timestamp format; null sends now. */
function scheduledAtOf(text: string | undefined, now: Date): string | null {
  if (text === undefined) return null;
  const parsed = parseScheduledAt(text, now);
  if (isDomainError(parsed)) throw new DomainRejection(parsed);
  return formatTimestamp(parsed);
}

/**
 * Decides a send on `state` and checks what the decider cannot: the `from` domain may be used by this key
 * (as for `POST /emails`), and neither the team nor that domain is paused for its reputation. Returns the
 * events without appending, so a create can append them with its own.
 */
async function decideSend(
  deps: BroadcastDeps,
  auth: RequestAuth,
  state: BroadcastRecord,
  scheduledAt: string | undefined,
  now: Date,
): Promise<BroadcastEvent[]> {
  const command: BroadcastCommand = {
    type: "SendBroadcast",
    teamId: auth.teamId,
    scheduledAt: scheduledAtOf(scheduledAt, now),
    domainId: null,
    now: formatTimestamp(now),
  };
  const verdict = broadcastDecider.decide(command, state);
  if (isDomainError(verdict)) throw new DomainRejection(verdict);
  const domainId = await sendingDomainFor(deps, auth, state.content.from!);
  await deps.paused(auth.teamId, domainId);
  return broadcastDecider.decide({ ...command, domainId }, state) as BroadcastEvent[];
}

async function append(
  deps: BroadcastDeps,
  broadcastId: string,
  events: BroadcastEvent[],
  revision: bigint | "no_stream",
  metadata: EventMetadata,
): Promise<ChangedBroadcast> {
  if (events.length === 0) return { id: broadcastId };
  const { position } = await deps.store.append(
    broadcastStream(broadcastId),
    events.map((event) => ({ id: newId(), type: event.type, data: event.data, metadata })),
    revision,
  );
  return { id: broadcastId, position };
}

/**
 * `POST /broadcasts`: a draft, or with `send: true` a draft sent (or scheduled) in the same append, so a
 * send that is refused leaves no draft behind.
 */
export async function createBroadcast(
  deps: BroadcastDeps,
  auth: RequestAuth,
  content: BroadcastContent,
  send: { send: boolean; scheduledAt: string | undefined },
  metadata: EventMetadata,
): Promise<ChangedBroadcast> {
  await checkReferences(deps, auth.teamId, content);
  const now = deps.clock.now();
  const broadcastId = newId();
  const create: BroadcastCommand = {
    type: "CreateBroadcast",
    broadcastId,
    teamId: auth.teamId,
    origin: "api",
    content,
    duplicatedFrom: null,
    now: formatTimestamp(now),
  };
  const events = broadcastDecider.decide(create, broadcastDecider.initialState) as BroadcastEvent[];
  if (send.send) {
    const draft = events.reduce(broadcastDecider.evolve, broadcastDecider.initialState) as BroadcastRecord;
    events.push(...(await decideSend(deps, auth, draft, send.scheduledAt, now)));
  }
  return append(deps, broadcastId, events, "no_stream", metadata);
}

export async function sendBroadcast(
  deps: BroadcastDeps,
  auth: RequestAuth,
  broadcastId: string,
  scheduledAt: string | undefined,
  metadata: EventMetadata,
): Promise<ChangedBroadcast> {
  for (let attempt = 1; ; attempt++) {
    const state = await loadBroadcast(deps.store, auth.teamId, broadcastId);
    const events = await decideSend(deps, auth, state, scheduledAt, deps.clock.now());
    try {
      return await append(deps, broadcastId, events, state.revision, metadata);
    } catch (error) {
      // A concurrent change (another send, an edit) wins; deciding again on it refuses or repeats the send.
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= 5) throw error;
    }
  }
}

function run(deps: BroadcastDeps, broadcastId: string, command: BroadcastCommand, metadata: EventMetadata): Promise<ChangedBroadcast> {
  return handleCommand({ store: deps.store, streamId: broadcastStream(broadcastId), decider: broadcastDecider, command, metadata }).then(
    ({ position }) => ({
      id: broadcastId,
      ...(position ? { position } : {}),
    }),
  );
}

export async function updateBroadcast(
  deps: BroadcastDeps,
  teamId: string,
  broadcastId: string,
  changes: Partial<BroadcastContent>,
  metadata: EventMetadata,
): Promise<ChangedBroadcast> {
  await loadBroadcast(deps.store, teamId, broadcastId);
  await checkReferences(deps, teamId, changes);
  return run(deps, broadcastId, { type: "UpdateBroadcast", teamId, changes, now: formatTimestamp(deps.clock.now()) }, metadata);
}

export function deleteBroadcast(
  deps: BroadcastDeps,
  teamId: string,
  broadcastId: string,
  metadata: EventMetadata,
): Promise<ChangedBroadcast> {
  return run(deps, broadcastId, { type: "DeleteBroadcast", teamId, now: formatTimestamp(deps.clock.now()) }, metadata);
}

export function cancelBroadcast(
  deps: BroadcastDeps,
  teamId: string,
  broadcastId: string,
  metadata: EventMetadata,
): Promise<ChangedBroadcast> {
  return run(deps, broadcastId, { type: "CancelBroadcast", teamId, now: formatTimestamp(deps.clock.now()) }, metadata);
}

const copySuffix = " (copy)";

/** A new draft with the source's content, whatever the source's state: a sent broadcast is the usual one to copy. */
export async function duplicateBroadcast(
  deps: BroadcastDeps,
  teamId: string,
  broadcastId: string,
  metadata: EventMetadata,
): Promise<ChangedBroadcast> {
  const source = await loadBroadcast(deps.store, teamId, broadcastId);
  const id = newId();
  const name = source.content.name === null ? null : source.content.name + copySuffix;
  const command: BroadcastCommand = {
    type: "CreateBroadcast",
    broadcastId: id,
    teamId,
    origin: "api",
    content: { ...source.content, name },
    duplicatedFrom: broadcastId,
    now: formatTimestamp(deps.clock.now()),
  };
  return append(deps, id, broadcastDecider.decide(command, broadcastDecider.initialState) as BroadcastEvent[], "no_stream", metadata);
}
