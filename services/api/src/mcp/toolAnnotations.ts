import type { ToolEffect } from "./mcpTools.js";

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint?: true;
  openWorldHint: boolean;
}

/**
 * MCP's hints from a tool's effect. Every tool states both `readOnlyHint` and `destructiveHint`, as the
 * spec's defaults (not read-only, destructive) would mislabel reads.
 */
export function toolAnnotations(effect: ToolEffect, openWorld: boolean): ToolAnnotations {
  const idempotent = effect === "read" || effect === "idempotentWrite" || effect === "idempotentDestructive";
  return {
    readOnlyHint: effect === "read",
    destructiveHint: effect === "destructive" || effect === "idempotentDestructive",
    ...(idempotent ? { idempotentHint: true as const } : {}),
    openWorldHint: openWorld,
  };
}
