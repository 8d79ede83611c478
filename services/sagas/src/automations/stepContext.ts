import type { ActiveRun, LiveContact } from "@tidings/domain";

/**
 * What `{var: "…"}` references and rules read (docs/wire-compatibility.md §6.14): `contact.first_name`, `contact.<property>`,
 * `payload.<field>` of the triggering event, `event.name`, and `steps.<key>.<output field>` of a step the run
 * has completed (`steps.<wait key>.payload.<field>` reads the event a `wait_for_event` received). The contact is read
 * when the step runs, so a
 * condition after a delay sees the contact as it is then.
 */
export function stepContext(
  run: ActiveRun,
  contact: LiveContact | undefined,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const contactFields = contact
    ? {
        ...contact.properties,
        id: contact.contactId,
        email: contact.email,
        first_name: contact.firstName,
        last_name: contact.lastName,
        unsubscribed: contact.unsubscribed,
      }
    : {};
  return {
    contact: contactFields,
    payload: run.trigger.payload,
    event: { id: run.trigger.receivedEventId, name: run.trigger.name, payload: run.trigger.payload },
    steps: run.outputs,
    ...extra,
  };
}

/**
 * Template variables take strings and numbers: a boolean becomes its word, an object or array its JSON, and an
 * unresolved reference is left out (so the template's fallback applies).
 */
export function templateValues(resolved: unknown): Record<string, string | number> {
  const values: Record<string, string | number> = {};
  if (resolved === null || typeof resolved !== "object") return values;
  for (const [key, value] of Object.entries(resolved as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    values[key] =
      typeof value === "number" || typeof value === "string" ? value : typeof value === "boolean" ? String(value) : JSON.stringify(value);
  }
  return values;
}
