import { resourceReads, type PointInTime } from "@tidings/api";
import { streamCategory } from "@tidings/eventstore";
import { isUuid } from "@tidings/projections";
import type { Runtime } from "../runtime.js";
import { UsageError } from "../usageError.js";

export function parsePointInTime(text: string, option: string): PointInTime {
  if (/^\d+$/.test(text)) return { revision: BigInt(text) };
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw new UsageError(`${option} takes an ISO time (2026-01-31T12:00:00Z) or a revision (0, 1, …), not "${text}"`);
  return { time: new Date(time) };
}

export const readsFor = (runtime: Pick<Runtime, "config">) => resourceReads(new URL(runtime.config.PUBLIC_URL).hostname);

/** The stream a target names: `template-<id>` as given, or a bare id tried in each category `audit state` replays. */
export async function streamOf(runtime: Pick<Runtime, "store">, target: string, supported: readonly string[]): Promise<string> {
  const given = target.trim().toLowerCase();
  if (!isUuid(given)) {
    const category = streamCategory(given);
    if (category === given || !isUuid(given.slice(category.length + 1)))
      throw new UsageError(`audit state takes a resource id or a stream id such as template-<id>, not "${target}"`);
    if (!supported.includes(category)) throw new UsageError(`audit state replays ${supported.join(", ")} streams, not ${category}`);
    return given;
  }
  for (const candidate of supported.map((c) => `${c}-${given}`)) {
    if ((await runtime.store.readStream(candidate, { maxCount: 1 })).length > 0) return candidate;
  }
  throw new UsageError(`no ${supported.join(", ")} stream has the id ${given}`);
}
