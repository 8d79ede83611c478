import { z } from "zod";
import { eventSchema } from "../eventSchema.js";

/** One stream per subject of a team, named by the subject's keyed hash: every erasure of that subject, in order. */
export const subjectErasureStream = (erasureKey: string) => `subjecterasure-${erasureKey}`;

/**
 * A data subject was erased (docs/privacy.md): their keys were shredded, so every value sealed under
 * them now reads as `erased:<tag>`. It names the subject by keyed hash only, never by address; who
 * ordered it is in `orderedBy` (and the metadata's actor). `contactId` is set when a contact's deletion
 * erased it. `subjectKeys` says how many keys the shredding reached; `contentKeys` was recorded only by
 * the first design, which kept a key row per piece of content (content keys are derived now).
 */
export const SubjectErased = eventSchema("SubjectErased", {
  teamId: z.string(),
  subjectHash: z.string(),
  orderedBy: z.string(),
  contactId: z.uuid().nullable(),
  subjectKeys: z.number().int().nonnegative(),
  contentKeys: z.number().int().nonnegative().optional(),
  erasedAt: z.string(),
});
export type SubjectErased = z.infer<typeof SubjectErased>;
