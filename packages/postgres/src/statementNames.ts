import { createHash } from "node:crypto";

/**
 * Which statements go to PostgreSQL as named (prepared) statements. A statement sent as text is parsed
 * and analysed again on every execution: with its planning, about a third of PostgreSQL's CPU while
 * email was delivered (perf, bench/send's drain). A named one is parsed and analysed once per
 * connection. The statements a process runs over and over have constant text, their values being
 * parameters, so a text is named once it has been seen `repeatsBeforeNaming` times. At most `maxNamed`
 * texts are: statements built afresh (a VALUES list of a new length) must not fill every session's
 * memory, and a text longer than `maxLength` is such a statement.
 */
export class StatementNames {
  private readonly seen = new Map<string, number>();
  private readonly named = new Map<string, string>();
  private readonly generations = new Map<string, number>();

  constructor(private readonly limits = { repeatsBeforeNaming: 2, maxNamed: 256, maxLength: 2048, maxTracked: 4096 }) {}

  /** The name to prepare `text` under, or undefined to send it as text. */
  nameOf(text: string): string | undefined {
    const name = this.named.get(text);
    if (name !== undefined) return name;
    if (text.length > this.limits.maxLength || !isPreparable(text) || this.named.size >= this.limits.maxNamed) return undefined;
    const seen = (this.seen.get(text) ?? 0) + 1;
    if (seen <= this.limits.repeatsBeforeNaming) {
      // Forgetting what was seen only delays naming; remembering every text ever sent would be a leak.
      if (this.seen.size >= this.limits.maxTracked) this.seen.clear();
      this.seen.set(text, seen);
      return undefined;
    }
    this.seen.delete(text);
    return this.name(text);
  }

  /**
   * The statement named for `text` can no longer run on the connections that prepared it: its result
   * type changed (a read model's view was recreated with other columns). Every connection prepares it
   * again under a new name; the old one stays in the sessions that have it, never used.
   */
  retire(text: string): void {
    if (!this.named.has(text)) return;
    this.generations.set(text, (this.generations.get(text) ?? 0) + 1);
    this.name(text);
  }

  private name(text: string): string {
    const name = `t${createHash("sha1").update(text).digest("hex").slice(0, 24)}_${this.generations.get(text) ?? 0}`;
    this.named.set(text, name);
    return name;
  }
}

/** Only these can be prepared; BEGIN, SET, DDL and the like go as text. */
const isPreparable = (text: string) => /^\s*(select|insert|update|delete|with|values)\b/i.test(text);

/** PostgreSQL's answer when a prepared statement's result columns changed since it was prepared. */
export const isResultTypeChange = (error: unknown) =>
  (error as { code?: string })?.code === "0A000" && /cached plan must not change result type/.test((error as Error).message);
