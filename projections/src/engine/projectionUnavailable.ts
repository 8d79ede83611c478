/** A rebuild or verify that cannot run now (another holds the projection, or it has no live tables): the operator's to retry. */
export class ProjectionUnavailableError extends Error {
  override readonly name = "ProjectionUnavailableError";
}
