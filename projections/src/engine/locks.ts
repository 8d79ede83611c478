/**
 * Advisory lock names. The runner lock keeps one instance of a projection applying batches; the rebuild
 * lock keeps one build of its shadow tables at a time, whether a runner's version bump or the CLI's.
 */
export const runnerLock = (projection: string) => `projection:${projection}`;
export const rebuildLock = (projection: string) => `projection-rebuild:${projection}`;
