import type { ConnectionType } from "@tidings/domain";

/** What executing a step came to; the runner turns it into the run's command. */
export type StepOutcome =
  | { kind: "complete"; outcome: "completed" | "skipped"; output: Record<string, unknown> | null; branch?: ConnectionType }
  | { kind: "park"; eventName: string | null; until: Date | null }
  | { kind: "fail"; error: string };
