import { DomainError } from "../../decider.js";

export const MAX_TAG_LENGTH = 256;
const tagText = /^[A-Za-z0-9_-]+$/;

export function checkTags(tags: { name: string; value: string }[]): DomainError | undefined {
  for (const tag of tags) {
    for (const part of ["name", "value"] as const) {
      const text = tag[part];
      if (!tagText.test(text) || text.length > MAX_TAG_LENGTH)
        return new DomainError(
          "validation_error",
          `Invalid \`tags\` field: the tag ${part} \`${text}\` must contain only ASCII letters, numbers, underscores or dashes, at most ${MAX_TAG_LENGTH} characters.`,
        );
    }
  }
  return undefined;
}
