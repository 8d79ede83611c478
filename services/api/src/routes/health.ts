import { z } from "zod";
import { TidingsError } from "@tidings/core";
import type { ApiRoutes } from "../app.js";

/** What must answer before this process takes traffic: the event store, the read database, the bus. */
export type ReadinessChecks = Record<string, () => Promise<void>>;

const ok = z.object({ status: z.literal("ok") });
const ready = z.object({ status: z.literal("ready"), checks: z.record(z.string(), z.literal("ok")) });

/**
 * `/health` says the process is alive and touches nothing else, so a slow database never gets a
 * healthy process restarted. `/ready` runs every check, each bounded by `timeoutMs`, and answers 503
 * naming the checks that failed; why they failed goes to the log, not to an unauthenticated caller.
 */
export function healthRoutes(checks: ReadinessChecks, timeoutMs: number): ApiRoutes {
  return (app) => {
    app.get("/health", { schema: { tags: ["operations"], security: [], response: { 200: ok } } }, async () => ({ status: "ok" as const }));

    app.get(
      "/ready",
      {
        schema: {
          tags: ["operations"],
          security: [],
          errors: { service_unavailable: "A check failed or timed out; the message names it." },
          response: { 200: ready },
        },
      },
      async (request) => {
        const results = await Promise.all(
          Object.entries(checks).map(async ([name, check]) => ({ name, outcome: await withTimeout(check, timeoutMs) })),
        );
        const failed = results.filter((result) => result.outcome !== "ok");
        for (const { name, outcome } of failed) {
          if (outcome === "timeout") request.log.warn({ check: name, timeoutMs }, "readiness check timed out");
          else request.log.warn({ check: name, err: (outcome as { error: unknown }).error }, "readiness check failed");
        }
        if (failed.length > 0) {
          const list = failed.map(
            ({ name, outcome }) => `\`${name}\` ${outcome === "timeout" ? `timed out after ${timeoutMs} ms` : "failed"}`,
          );
          throw new TidingsError("service_unavailable", `Not ready: ${list.join(", ")}.`);
        }
        return { status: "ready" as const, checks: Object.fromEntries(results.map(({ name }) => [name, "ok" as const])) };
      },
    );
  };
}

type Outcome = "ok" | "timeout" | { error: unknown };

async function withTimeout(check: () => Promise<void>, timeoutMs: number): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    const run = Promise.resolve().then(check);
    return await Promise.race([
      run.then(
        (): Outcome => "ok",
        (error: unknown): Outcome => ({ error }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
