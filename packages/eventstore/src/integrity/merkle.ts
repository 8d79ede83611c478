import { createHash } from "node:crypto";
import { byUtf8 } from "./canonicalJson.js";

/** A stream's last event: its revision and hash. */
export interface StreamHead {
  revision: bigint;
  hash: string;
}

function sha256(...parts: string[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part, "utf8");
  return hash.digest("hex");
}

/**
 * The Merkle root over heads sorted by stream id: leaves `sha256("leaf|" stream "|" revision "|" hash)`,
 * nodes `sha256("node|" left right)`, an odd node carried up as it is; "" for no heads. The prefixes keep
 * a leaf from passing for a node.
 */
export function headsRoot(heads: Map<string, StreamHead>): string {
  let level = [...heads.keys()].sort(byUtf8).map((stream) => {
    const head = heads.get(stream)!;
    return sha256("leaf|", stream, "|", head.revision.toString(), "|", head.hash);
  });
  if (level.length === 0) return "";
  while (level.length > 1) {
    const next: string[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? sha256("node|", level[i]!, level[i + 1]!) : level[i]!);
    level = next;
  }
  return level[0]!;
}
