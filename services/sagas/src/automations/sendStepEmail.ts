import { deterministicId, formatTimestamp } from "@tidings/core";
import { domainHolding, loadState } from "@tidings/commands";
import {
  checkFrom,
  checkSendingDomain,
  emailStream,
  isDomainError,
  renderTemplate,
  resolveVariables,
  sendingDomainName,
  sendingPausedMessage,
  templateDecider,
  templateStream,
  type ActiveRun,
  type AutomationStep,
  type EmailContent,
  type LiveContact,
} from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";
import type { SendingPauseOf } from "@tidings/projections";
import { queueEmail, textPart } from "@tidings/sending";
import type { SuppressedRecipients } from "@tidings/sending";
import type { StepOutcome } from "./stepOutcome.js";
import { stepContext, templateValues } from "./stepContext.js";

export interface SendStepDeps {
  store: EventStore;
  allowUnverifiedFrom: boolean;
  /** The team's suppression list: delivery trusts a fresh email's queue to have asked it, as a send does. */
  suppressed: SuppressedRecipients;
  /** The team's or the domain's pause for its reputation, which fails the step with the refusal a send gets. */
  paused: SendingPauseOf;
  now(): Date;
}

interface SendEmailConfig {
  template: { id: string; variables?: Record<string, unknown> };
  subject?: string;
  from?: string;
  reply_to?: string | string[];
  topic_id?: string;
}

/** The email id of a run's send step: the same run and step always name the same email, so it is queued once. */
export const stepEmailId = (runId: string, stepKey: string) => deterministicId("automation-run-email", runId, stepKey);

/**
 * Queues the step's email for the run's contact, rendered from the template's published version with the
 * step's variables. The email's id derives from the run and the step and its stream must not exist yet,
 * so a step executed again after a crash finds its email queued and queues nothing.
 */
export async function sendStepEmail(
  deps: SendStepDeps,
  run: ActiveRun,
  step: AutomationStep,
  contact: LiveContact,
  metadata: EventMetadata,
): Promise<StepOutcome> {
  const config = step.config as unknown as SendEmailConfig;
  const emailId = stepEmailId(run.runId, step.key);
  const [queued, template] = await Promise.all([
    deps.store.readStream(emailStream(emailId), { maxCount: 1 }),
    loadState(deps.store, templateStream(config.template.id), templateDecider),
  ]);
  // Queued by an earlier execution that stopped before recording it: done, whatever changed since.
  if (queued.length > 0) return { kind: "complete", outcome: "completed", output: { email_id: emailId } };
  if (contact.unsubscribed) return { kind: "complete", outcome: "skipped", output: { reason: "contact_unsubscribed" } };
  if (config.topic_id && contact.topics[config.topic_id] === "opt_out")
    return { kind: "complete", outcome: "skipped", output: { reason: "topic_opt_out" } };

  if (template.status !== "active" || template.teamId !== run.teamId)
    return { kind: "fail", error: `Template \`${config.template.id}\` not found.` };
  if (!template.published) return { kind: "fail", error: `Template \`${config.template.id}\` is not published.` };
  const { name, subject, from, replyTo, html, text, variables } = template.published.content;
  const values = templateValues(resolveVariables(config.template.variables ?? {}, stepContext(run, contact)));
  const rendered = renderTemplate(
    { templateId: template.templateId, version: template.published.version, name, subject, from, replyTo, html, text, variables },
    values,
    { from: config.from, subject: config.subject, replyTo: config.reply_to === undefined ? undefined : [config.reply_to].flat() },
  );
  if (isDomainError(rendered)) return { kind: "fail", error: rendered.message };
  const badFrom = checkFrom(rendered.from);
  if (badFrom) return { kind: "fail", error: badFrom.message };
  const domainName = sendingDomainName(rendered.from);
  const holder = await domainHolding(deps.store, domainName);
  const domain = checkSendingDomain({
    name: domainName,
    holder,
    teamId: run.teamId,
    allowUnverified: deps.allowUnverifiedFrom,
    restrictedTo: null,
  });
  if (isDomainError(domain)) return { kind: "fail", error: domain.message };
  const pause = await deps.paused(run.teamId, domain.domainId);
  if (pause) return { kind: "fail", error: sendingPausedMessage(pause) };

  const now = formatTimestamp(deps.now());
  const content: EmailContent = {
    emailId,
    teamId: run.teamId,
    from: rendered.from,
    to: [contact.email],
    cc: [],
    bcc: [],
    replyTo: rendered.replyTo,
    subject: rendered.subject,
    html: rendered.html,
    text: textPart(rendered.html, rendered.text),
    headers: {},
    tags: [{ name: "automation_id", value: run.automationId }],
    attachments: [],
    templateId: template.templateId,
    templateVersion: template.published.version,
    domainId: domain.domainId,
    createdAt: now,
  };
  const suppressed = await deps.suppressed(run.teamId, content.to);
  // Queued by a concurrent execution of this step a moment ago, the append finds the stream there.
  await queueEmail(deps.store, { content, scheduledAt: null, suppressed, now, metadata }, "derived");
  return { kind: "complete", outcome: "completed", output: { email_id: emailId } };
}
