import { deterministicId, formatTimestamp } from "@tidings/core";
import { addContactToSegment, contactPropertyTypes, eraseContact, type ErasureDeps } from "@tidings/audience";
import {
  contactDecider,
  contactStream,
  fold,
  isDomainError,
  resolveVariables,
  type ActiveRun,
  type AutomationStep,
  type ContactEvent,
  type LiveContact,
} from "@tidings/domain";
import { WrongExpectedRevisionError, type EventMetadata } from "@tidings/eventstore";
import type { StepOutcome } from "./stepOutcome.js";
import { stepContext } from "./stepContext.js";

type Deps = ErasureDeps;

/** A step that acts on the run's contact, as `executeStep` runs it once the contact is found active. */
type ContactStep = (
  deps: Deps,
  run: ActiveRun,
  step: AutomationStep,
  contact: LiveContact,
  metadata: EventMetadata,
) => Promise<StepOutcome>;

/** The step done: its output names the contact, and says what the step did to it. */
const completedOn = (contact: LiveContact, done: Record<string, unknown> = {}): StepOutcome => ({
  kind: "complete",
  outcome: "completed",
  output: { contact_id: contact.contactId, ...done },
});

/**
 * Applies a `contact_update` step once. Its event id derives from the run and the step: a contact stream
 * that already holds it has had this update, so a step executed again after a crash changes nothing,
 * even if the contact was edited in between.
 */
export const updateStepContact: ContactStep = async (deps, run, step, contact, metadata) => {
  const eventId = deterministicId("automation-run-contact-update", run.runId, step.key);
  const config = resolveVariables(step.config, stepContext(run, contact)) as {
    first_name?: string | null;
    last_name?: string | null;
    unsubscribed?: boolean;
    properties?: Record<string, string | number | null>;
  };
  const changes = {
    ...(config.first_name !== undefined ? { firstName: config.first_name === null ? null : String(config.first_name) } : {}),
    ...(config.last_name !== undefined ? { lastName: config.last_name === null ? null : String(config.last_name) } : {}),
    ...(config.unsubscribed !== undefined ? { unsubscribed: Boolean(config.unsubscribed) } : {}),
  };
  const properties = config.properties ?? {};
  const propertyTypes = await contactPropertyTypes(deps.store, run.teamId, Object.keys(properties));
  const stream = contactStream(contact.contactId);
  for (let attempt = 1; ; attempt++) {
    const recorded = await deps.store.readStream(stream);
    if (recorded.some((e) => e.id === eventId)) return completedOn(contact);
    const state = fold(
      contactDecider,
      recorded.map((e) => ({ type: e.type, data: e.data }) as ContactEvent),
    );
    const decided = contactDecider.decide(
      { type: "UpdateContact", teamId: run.teamId, changes, properties, propertyTypes, now: formatTimestamp(deps.clock.now()) },
      state,
    );
    if (isDomainError(decided)) return { kind: "fail", error: decided.message };
    if (decided.length === 0) return completedOn(contact, { changed: false });
    try {
      await deps.store.append(
        stream,
        decided.map((e, i) => ({ id: i === 0 ? eventId : deterministicId(eventId, String(i)), type: e.type, data: e.data, metadata })),
        recorded.at(-1)!.revision,
      );
      return completedOn(contact, { changed: true });
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= 10) throw error;
    }
  }
};

/** Erasure repeats safely: a contact already erased is reported erased. */
export async function deleteStepContact(deps: Deps, run: ActiveRun, contact: LiveContact, metadata: EventMetadata): Promise<StepOutcome> {
  await eraseContact(deps, run.teamId, contact.contactId, metadata);
  return completedOn(contact, { deleted: true });
}

/** Membership is a set: adding the contact again appends nothing. */
export const addStepContactToSegment: ContactStep = async (deps, run, step, contact, metadata) => {
  const segmentId = step.config.segment_id as string;
  await addContactToSegment(deps, run.teamId, contact.contactId, segmentId, metadata);
  return completedOn(contact, { segment_id: segmentId });
};
