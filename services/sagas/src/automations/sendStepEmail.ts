import { deterministicId, formatTimestamp } from "@tidings/core";
import { domainHolding, loadState } from "@tidings/commands";
import {
  checkFrom,
  emailDecider,
  emailStream,
  isDomainError,
  isEligibleForSending,
  normalizeDomainName,
  parseMailbox,
  renderTemplate,
  resolveVariables,
  templateDecider,
  templateStream,
  type ActiveRun,
  type AutomationStep,
  type EmailContent,
  type LiveContact,
} from "@tidings/domain";
import { WrongExpectedRevisionError, type EventMetadata, type EventStore } from "@tidings/eventstore";
import { htmlToText } from "@tidings/mail";
import type { StepOutcome } from "./stepOutcome.js";
import { stepContext, templateValues } from "./stepContext.js";

export interface SendStepDeps {
  store: EventStore;
  allowUnverifiedFrom: boolean;
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

/** The team's domain the `from` is on, under the same rule as `POST /emails` (TIDINGS_ALLOW_UNVERIFIED_FROM). */
async function sendingDomain(deps: SendStepDeps, teamId: string, from: string): Promise<{ domainId: string | null } | { error: string }> {
  const written = parseMailbox(from)!.address.split("@")[1]!.toLowerCase();
  const name = normalizeDomainName(written) ?? written;
  const holder = await domainHolding(deps.store, name);
  const domain = holder?.teamId === teamId ? holder : undefined;
  if (domain?.settings.capabilities.sending === "disabled") return { error: `The \`${name}\` domain has sending disabled.` };
  if (!deps.allowUnverifiedFrom && !(domain && isEligibleForSending(domain))) return { error: `The \`${name}\` domain is not verified.` };
  return { domainId: domain?.domainId ?? null };
}

/**
 * Queues the step's email for the run's contact, rendered from the template's published version with the
 * step's variables. The email's id derives from the run and the step and its stream must not exist yet,
 * so a step executed again after a crash finds its email queued and queues nothing.
 */
export async function sendStepEmail(deps: SendStepDeps, run: ActiveRun, step: AutomationStep, contact: LiveContact, metadata: EventMetadata): Promise<StepOutcome> {
  const config = step.config as unknown as SendEmailConfig;
  const emailId = stepEmailId(run.runId, step.key);
  const [queued, template] = await Promise.all([deps.store.readStream(emailStream(emailId), { maxCount: 1 }), loadState(deps.store, templateStream(config.template.id), templateDecider)]);
  // Queued by an earlier execution that stopped before recording it: done, whatever changed since.
  if (queued.length > 0) return { kind: "complete", outcome: "completed", output: { email_id: emailId } };
  if (contact.unsubscribed) return { kind: "complete", outcome: "skipped", output: { reason: "contact_unsubscribed" } };
  if (config.topic_id && contact.topics[config.topic_id] === "opt_out") return { kind: "complete", outcome: "skipped", output: { reason: "topic_opt_out" } };

  if (template.status !== "active" || template.teamId !== run.teamId) return { kind: "fail", error: `Template \`${config.template.id}\` not found.` };
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
  const domain = await sendingDomain(deps, run.teamId, rendered.from);
  if ("error" in domain) return { kind: "fail", error: domain.error };

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
    text: rendered.text === "" ? null : (rendered.text ?? htmlToText(rendered.html)),
    headers: {},
    tags: [{ name: "automation_id", value: run.automationId }],
    attachments: [],
    templateId: template.templateId,
    templateVersion: template.published.version,
    domainId: domain.domainId,
    createdAt: now,
  };
  const decided = emailDecider.decide({ type: "SendEmail", content, scheduledAt: null, suppressed: [], now }, emailDecider.initialState);
  if (isDomainError(decided)) return { kind: "fail", error: decided.message };
  try {
    await deps.store.append(
      emailStream(emailId),
      decided.map((event, i) => ({ id: deterministicId(emailId, "queued", String(i)), type: event.type, data: event.data, metadata })),
      "no_stream",
    );
  } catch (error) {
    // Queued a moment ago by a concurrent execution of this step.
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
  }
  return { kind: "complete", outcome: "completed", output: { email_id: emailId } };
}
