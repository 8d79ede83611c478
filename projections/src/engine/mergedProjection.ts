import type { Projection } from "./projection.js";

/**
 * Several read models run as one projection: one leader lock, so one dedicated database connection per
 * process instead of one per part (each leader holds its advisory lock on a connection of its own). The
 * parts handle disjoint event types. The version is the sum of the parts', so bumping any part rebuilds.
 */
export function mergedProjection(name: string, parts: Projection[]): Projection {
  const handlers: Projection["handlers"] = {};
  for (const part of parts)
    for (const [type, handler] of Object.entries(part.handlers)) {
      if (handlers[type]) throw new Error(`${name}: ${part.name} and another part both handle ${type}`);
      handlers[type] = handler;
    }
  return {
    name,
    version: parts.reduce((sum, part) => sum + part.version, 0),
    tables: Object.assign({}, ...parts.map((part) => part.tables)),
    handlers,
    ...(parts.every((part) => !part.handlers["*"] || part.anyTypeReadsData === false) ? { anyTypeReadsData: false as const } : {}),
  };
}
