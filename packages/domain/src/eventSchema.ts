import { z } from "zod";

/**
 * The schema of one recorded event: `{type, data}`, the type a literal. Every event has this shape, so a
 * union of them discriminates on `type`, and scripts/event-catalogue.mjs finds each one by it.
 */
export function eventSchema<const Type extends string, Data extends z.ZodRawShape>(type: Type, data: Data) {
  return z.object({ type: z.literal(type), data: z.object(data) });
}

type AnyEventSchema = ReturnType<typeof eventSchema<string, z.ZodRawShape>>;

/** The events of one stream category, told apart by `type`: what its `evolve` folds and the catalogue lists. */
export function eventUnion<const Events extends readonly [AnyEventSchema, ...AnyEventSchema[]]>(events: Events) {
  return z.discriminatedUnion("type", events);
}
