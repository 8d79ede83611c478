import { DomainError } from "../../decider.js";

export interface ContentInput {
  subject?: string | undefined;
  html?: string | undefined;
  text?: string | undefined;
  react?: unknown;
  template?: unknown;
}

/**
 * A template send takes its body from the template, so a body in the payload is a contradiction (seed
 * spec, Template rules). Without a template the subject is required and some body must be given.
 */
export function checkContent(input: ContentInput, templateSubject: string | null): DomainError | undefined {
  const mixed = checkTemplateExclusive(input);
  if (mixed) return mixed;
  if (!input.subject && !templateSubject) return new DomainError("missing_required_field", "Missing `subject` field.");
  if (input.template === undefined && input.html === undefined && input.text === undefined)
    return new DomainError("missing_required_field", "Missing `html` or `text` field.");
  return undefined;
}

/** Checked before the template is looked up: a payload that mixes both is wrong whatever the template. */
export function checkTemplateExclusive(input: ContentInput): DomainError | undefined {
  if (input.template === undefined) return undefined;
  const given = (["html", "text", "react"] as const).filter((field) => input[field] !== undefined);
  if (given.length === 0) return undefined;
  return new DomainError("validation_error", `The \`template\` field cannot be used together with \`${given.join("`, `")}\`.`);
}
