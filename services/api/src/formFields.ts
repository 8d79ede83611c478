/** A form post (`application/x-www-form-urlencoded`): every field with all its values (a checkbox list repeats its name). */
export function formFields(text: string): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const [name, value] of new URLSearchParams(text)) (fields[name] ??= []).push(value);
  return fields;
}
