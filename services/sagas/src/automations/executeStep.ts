import { TidingsError, type Clock } from "@tidings/core";
import { DomainRejection } from "@tidings/commands";
import { loadContact } from "@tidings/audience";
import { evaluateRule, parseDuration, type ActiveRun, type AutomationStep, type Rule } from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";
import { addStepContactToSegment, deleteStepContact, updateStepContact } from "./contactSteps.js";
import type { SuppressedRecipients } from "@tidings/sending";
import type { DataKeys, SubjectHasher } from "@tidings/privacy";
import { sendStepEmail } from "./sendStepEmail.js";
import { stepContext } from "./stepContext.js";
import type { StepOutcome } from "./stepOutcome.js";
import type { SendingPauseOf } from "@tidings/projections";

export interface StepDeps {
  store: EventStore;
  clock: Clock;
  /** A delete-contact step erases the contact (docs/privacy.md): its keys go. */
  keys: DataKeys;
  hashSubject: SubjectHasher;
  allowUnverifiedFrom: boolean;
  suppressed: SuppressedRecipients;
  paused: SendingPauseOf;
}

const later = (deps: StepDeps, duration: string) => new Date(deps.clock.now().getTime() + parseDuration(duration)!);

async function runStep(deps: StepDeps, run: ActiveRun, step: AutomationStep, metadata: EventMetadata): Promise<StepOutcome> {
  switch (step.type) {
    case "delay":
      return { kind: "park", eventName: null, until: later(deps, step.config.duration as string) };
    case "wait_for_event": {
      const timeout = step.config.timeout as string | undefined;
      return { kind: "park", eventName: step.config.event_name as string, until: timeout === undefined ? null : later(deps, timeout) };
    }
    case "trigger":
      return { kind: "complete", outcome: "completed", output: null };
    default:
      break;
  }
  const found = await loadContact(deps.store, run.trigger.contactId);
  const contact = found.status === "active" && found.teamId === run.teamId ? found : undefined;
  if (step.type === "condition") {
    const met = evaluateRule(step.config as unknown as Rule, stepContext(run, contact));
    return { kind: "complete", outcome: "completed", output: { result: met }, branch: met ? "condition_met" : "condition_not_met" };
  }
  if (!contact) return { kind: "fail", error: "Contact not found" };
  switch (step.type) {
    case "send_email":
      return sendStepEmail(
        {
          store: deps.store,
          allowUnverifiedFrom: deps.allowUnverifiedFrom,
          suppressed: deps.suppressed,
          paused: deps.paused,
          now: () => deps.clock.now(),
        },
        run,
        step,
        contact,
        metadata,
      );
    case "contact_update":
      return updateStepContact(deps, run, step, contact, metadata);
    case "contact_delete":
      return deleteStepContact(deps, run, contact, metadata);
    case "add_to_segment":
      return addStepContactToSegment(deps, run, step, contact, metadata);
  }
}

/**
 * Executes the step the run is on. A rule the step breaks (a template not published, a segment deleted)
 * fails the step and the run; anything else (the store unreachable) is thrown, and the message or timer
 * that brought the run here tries again.
 */
export async function executeStep(deps: StepDeps, run: ActiveRun, step: AutomationStep, metadata: EventMetadata): Promise<StepOutcome> {
  try {
    return await runStep(deps, run, step, metadata);
  } catch (error) {
    if (error instanceof TidingsError) return { kind: "fail", error: error.message };
    if (error instanceof DomainRejection) return { kind: "fail", error: error.error.message };
    throw error;
  }
}
