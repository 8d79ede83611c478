import { productProjections, streamsProjection, type Projection } from "@tidings/projections";

/** Every read model this build of Tidings maintains: the product's, and the admin catalogue of streams. */
export const projections: Projection[] = [...productProjections, streamsProjection];

export function findProjection(name: string): Projection | undefined {
  return projections.find((p) => p.name === name);
}
