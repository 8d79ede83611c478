import { formatTimestamp, isUuid, TidingsError, type Clock } from "@tidings/core";
import { DomainRejection, handleCommand, loadState } from "@tidings/commands";
import { isDomainError, normalContactEmail, suppressionDecider, suppressionStream, type SuppressionCommand } from "@tidings/domain";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import { isErasedText, type SubjectHasher } from "@tidings/privacy";
import { suppressionIdOf } from "@tidings/projections";
import { getSuppression, type SuppressionItem } from "../queries/suppressions.js";

type Deps = {
  store: EventStore;
  database: Database;
  clock: Clock;
  hashSubject: SubjectHasher;
  catchUp(projections: readonly string[]): Promise<boolean>;
};

export interface ChangedSuppression {
  id: string;
  position?: Position;
}

const addCommand = (deps: Deps, teamId: string, email: string): SuppressionCommand => ({
  type: "AddSuppression",
  suppressionId: suppressionIdOf(teamId, normalContactEmail(email)),
  teamId,
  email,
  origin: "manual",
  sourceId: null,
  now: formatTimestamp(deps.clock.now()),
});

async function run(deps: Deps, command: SuppressionCommand, metadata: EventMetadata): Promise<ChangedSuppression> {
  const { position } = await handleCommand({
    store: deps.store,
    streamId: suppressionStream(command.suppressionId),
    decider: suppressionDecider,
    command,
    metadata,
  });
  return { id: command.suppressionId, ...(position ? { position } : {}) };
}

/** Refuses the whole batch when one address is bad, naming it, so a batch is never half-applied by input. */
export function checkSuppressionEmails(deps: Deps, teamId: string, emails: string[], field: (index: number) => string): void {
  emails.forEach((email, index) => {
    const verdict = suppressionDecider.decide(addCommand(deps, teamId, email), suppressionDecider.initialState);
    if (isDomainError(verdict))
      throw new DomainRejection({ ...verdict, message: verdict.message.replace("`email`", `\`${field(index)}\``) });
  });
}

/** A manual suppression; an address already on the list keeps its first origin and answers with its id. */
export function addSuppression(deps: Deps, teamId: string, email: string, metadata: EventMetadata): Promise<ChangedSuppression> {
  return run(deps, addCommand(deps, teamId, email), metadata);
}

/**
 * Takes an address off the list, named by id or email. A bounce or a complaint is on the list without a
 * stream of its own (see the suppressions projection), so the list is looked up first; an addition not
 * yet on it is found through its stream. Found in neither, the address may have bounced a moment ago:
 * the list is asked again once it holds every write made before, rather than answer "not found".
 */
export async function removeSuppression(
  deps: Deps,
  teamId: string,
  idOrEmail: string,
  metadata: EventMetadata,
): Promise<ChangedSuppression> {
  let listed = await getSuppression(deps.database, teamId, idOrEmail, deps.hashSubject);
  let email = listed && addressToRemove(listed, idOrEmail);
  let suppressionId = listed?.id;
  if (!listed) {
    suppressionId = isUuid(idOrEmail) ? idOrEmail : suppressionIdOf(teamId, normalContactEmail(idOrEmail));
    const state = await loadState(deps.store, suppressionStream(suppressionId), suppressionDecider);
    const inStream = state.status === "active" && state.teamId === teamId;
    email = inStream ? state.email : idOrEmail;
    if (!inStream) {
      if (!(await deps.catchUp(["suppressions"])))
        throw new TidingsError("service_unavailable", "The suppression list is behind and cannot be searched yet; retry in a moment.");
      listed = await getSuppression(deps.database, teamId, idOrEmail, deps.hashSubject);
      if (listed) [email, suppressionId] = [addressToRemove(listed, idOrEmail), listed.id];
    }
  }
  const command: SuppressionCommand = {
    type: "RemoveSuppression",
    suppressionId: suppressionId!,
    teamId,
    email: email!,
    listed: listed !== undefined,
    now: formatTimestamp(deps.clock.now()),
  };
  return run(deps, command, metadata);
}

/**
 * The address a removal names. A row listed under an erased address's placeholder holds none, so only the
 * caller's naming of it can: the removal records it, and its hash, which takes the placeholder's row off.
 */
function addressToRemove(listed: SuppressionItem, idOrEmail: string): string {
  if (!isErasedText(listed.email)) return listed.email;
  if (isUuid(idOrEmail)) throw new TidingsError("validation_error", "This suppression's address was erased: remove it by the address.");
  return idOrEmail;
}
