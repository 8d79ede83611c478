import { createHash, type Hash } from "node:crypto";
import { headsRoot, type StreamHead } from "./merkle.js";
import type { ChainEntry } from "./records.js";

export interface StretchSummary {
  events: number;
  digest: string;
  heads: { streams: number; root: string };
}

/**
 * What a seal says about a stretch of `$all`: how many events, the digest of their hashes in order (so a
 * reordering or a cut shows), and the heads of the streams it moved. The sealer and the verifier both
 * add the same entries to one of these and compare the summaries.
 */
export class Stretch {
  private digest: Hash = createHash("sha256");
  private count = 0;
  private heads = new Map<string, StreamHead>();

  get size(): number {
    return this.count;
  }

  add(entry: ChainEntry): void {
    this.count++;
    this.digest.update(entry.hash ?? "-", "utf8");
    this.heads.set(entry.streamId, { revision: entry.revision, hash: entry.hash ?? "" });
  }

  /** The summary so far; the stretch starts again empty. */
  close(): StretchSummary {
    const summary = {
      events: this.count,
      digest: this.digest.digest("hex"),
      heads: { streams: this.heads.size, root: headsRoot(this.heads) },
    };
    this.digest = createHash("sha256");
    this.count = 0;
    this.heads = new Map();
    return summary;
  }
}
