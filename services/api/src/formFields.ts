/** A form post (`application/x-www-form-urlencoded`): every field with all its values (a checkbox list repeats its name). */
export function formFields(text: string): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const [name, value] of new URLSearchParams(text)) addFormField(fields, name, value);
  return fields;
}

/**
 * Adds a value to a field of a form being gathered (a multipart form's fields come a part at a time). Own
 * properties only: a field named like one of Object.prototype's members (`toString`, `constructor`) found
 * the inherited function instead of a list, and the post failed with a 500; `__proto__` is defined, not set.
 */
export function addFormField(fields: Record<string, string[]>, name: string, value: string): void {
  if (Object.hasOwn(fields, name)) fields[name]!.push(value);
  else Object.defineProperty(fields, name, { value: [value], enumerable: true, writable: true, configurable: true });
}
