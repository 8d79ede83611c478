import { DomainError } from "../decider.js";
import type { TemplateContent, TemplateVariable } from "./events.js";

export const TEMPLATE_VARIABLES_MAX = 50;
export const TEMPLATE_NAME_MAX = 255;
export const TEMPLATE_VARIABLE_KEY_MAX = 50;

/** docs/wire-compatibility.md §9: keys are ASCII letters, digits and underscores, at most 50 characters. */
const variableKeyPattern = /^[A-Za-z0-9_]+$/;
/** docs/wire-compatibility.md §9 reserves these for broadcasts and contact fields. */
const reservedVariableKeys = new Set(["FIRST_NAME", "LAST_NAME", "EMAIL", "UNSUBSCRIBE_URL", "RESEND_UNSUBSCRIBE_URL", "contact", "this"]);
/**
 * The SDK puts an alias into the path raw (docs/wire-compatibility.md §1.3) and refuses `.` and `..` segments, so an alias is kept to
 * characters that need no encoding.
 */
const aliasPattern = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$/;
const addressPattern = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;
const namedAddressPattern = /^[^<>]*<([^\s@<>]+@[^\s@<>]+\.[^\s@<>]+)>$/;

/** `a@b.c` or `Name <a@b.c>`, the sender forms of docs/wire-compatibility.md §10.3. */
export const isMailbox = (value: string) => addressPattern.test(value.trim()) || namedAddressPattern.test(value.trim());

const invalid = (message: string) => new DomainError("validation_error", message);

function checkVariable(variable: TemplateVariable, index: number): DomainError | undefined {
  const where = `\`variables[${index}]\``;
  if (!variableKeyPattern.test(variable.key) || variable.key.length > TEMPLATE_VARIABLE_KEY_MAX)
    return invalid(`${where}.key must be 1 to ${TEMPLATE_VARIABLE_KEY_MAX} ASCII letters, digits or underscores.`);
  if (reservedVariableKeys.has(variable.key)) return invalid(`${where}.key \`${variable.key}\` is a reserved name.`);
  const fallback = variable.fallbackValue;
  if (fallback === null) return undefined;
  if (variable.type === "number" && (typeof fallback !== "number" || !Number.isFinite(fallback)))
    return invalid(`${where}.fallback_value must be a number, as its type is \`number\`.`);
  if (variable.type === "string" && typeof fallback !== "string")
    return invalid(`${where}.fallback_value must be a string, as its type is \`string\`.`);
  return undefined;
}

/** The rules every version of a template keeps, at creation and after each edit. */
export function checkTemplateContent(content: TemplateContent): DomainError | undefined {
  if (content.name.trim().length === 0) return invalid("The `name` field must contain at least 1 character.");
  if (content.name.length > TEMPLATE_NAME_MAX) return invalid(`The \`name\` field must be at most ${TEMPLATE_NAME_MAX} characters.`);
  if (content.html.length === 0) return invalid("The `html` field must contain at least 1 character.");
  if (content.alias !== null && !aliasPattern.test(content.alias))
    return invalid("The `alias` field must be 1 to 255 letters, digits, `.`, `_` or `-`, not starting with `.`.");
  if (content.from !== null && !isMailbox(content.from))
    return new DomainError(
      "invalid_from_address",
      "Invalid `from` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.",
    );
  const badReplyTo = content.replyTo?.findIndex((address) => !isMailbox(address)) ?? -1;
  if (badReplyTo >= 0) return invalid(`\`reply_to[${badReplyTo}]\` must be \`email@example.com\` or \`Name <email@example.com>\`.`);
  if (content.variables.length > TEMPLATE_VARIABLES_MAX)
    return invalid(`The \`variables\` field must hold at most ${TEMPLATE_VARIABLES_MAX} variables.`);
  const seen = new Set<string>();
  for (const [index, variable] of content.variables.entries()) {
    const bad = checkVariable(variable, index);
    if (bad) return bad;
    if (seen.has(variable.key)) return invalid(`\`variables[${index}]\`.key \`${variable.key}\` is declared twice.`);
    seen.add(variable.key);
  }
  return undefined;
}
